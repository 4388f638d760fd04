//===- TileTypes.td - tile dialect types ------------------------*- tablegen -*-===//

#ifndef TESSEL_TILE_TYPES
#define TESSEL_TILE_TYPES

include "dialect/tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_ViewType : TypeDef<Tile_Dialect, "View"> {
  let mnemonic = "view";
  let summary = "A strided view of global memory";
  let description = [{
    A view is a pointer into global memory with a rank, an element type, a size
    and a stride (in elements) per dimension. Sizes written `?` and all strides
    are kernel arguments known only at launch; a static size is a promise the
    launcher checks.

    Two optional facts let the compiler use vector loads and TMA:
    - `align = N`: the base address and every stride but the last, times the
      element size, are multiples of N bytes (N a power of two, at least the
      element size);
    - `unit_stride`: the stride of the last dimension is 1.

    ```mlir
    !tile.view<?x?x?xbf16>
    !tile.view<?x?xf32, align = 16, unit_stride>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "sizes (ShapedType::kDynamic when dynamic)">:$shape,
    "::mlir::Type":$elementType,
    DefaultValuedParameter<"int64_t", "0">:$align,
    DefaultValuedParameter<"bool", "false">:$unitStride);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 0;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    /// Size of one element in bytes.
    int64_t getElementBytes() const;
    /// The alignment the compiler may assume, in bytes (at least the element size).
    int64_t getAssumedAlignment() const {
      return getAlign() ? getAlign() : getElementBytes();
    }
  }];
}

#endif // TESSEL_TILE_TYPES
