//===- TileTypes.cpp - !tile.view -------------------------------------===//

#include "dialect/tile/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel::tile;

#define GET_TYPEDEF_CLASSES
#include "dialect/tile/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/tile/TileTypes.cpp.inc"
      >();
}

int64_t ViewType::getElementBytes() const {
  Type type = getElementType();
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 1;
}

bool tessel::tile::isViewElementType(Type type) {
  return type.isBF16() || type.isF16() || type.isF32() || type.isF64() ||
         type.isSignlessInteger(8) || type.isSignlessInteger(16) ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64);
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               int64_t align, bool unitStride) {
  if (shape.empty())
    return emitError() << "a view needs rank >= 1";
  for (int64_t size : shape)
    if (size != ShapedType::kDynamic && size < 0)
      return emitError() << "view sizes must be non-negative or '?', got "
                         << size;
  if (!isViewElementType(elementType))
    return emitError() << "view element type must be bf16, f16, f32, f64, i8, "
                          "i16, i32 or i64, got "
                       << elementType;
  if (align != 0) {
    int64_t bytes =
        std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
    if (align < 0 || !llvm::isPowerOf2_64(align) || align < bytes ||
        align > 256)
      return emitError() << "view alignment must be a power of two between "
                            "the element size ("
                         << bytes << " bytes) and 256, got " << align;
  }
  return success();
}

Type ViewType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t align = 0;
  bool unitStride = false, sawAlign = false;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return {};
    if (keyword == "align") {
      // align = 0 means "none": a second `align` must not silently win.
      if (sawAlign) {
        parser.emitError(keyLoc, "'align' is given twice");
        return {};
      }
      sawAlign = true;
      if (parser.parseEqual() || parser.parseInteger(align))
        return {};
    } else if (keyword == "unit_stride") {
      if (unitStride) {
        parser.emitError(keyLoc, "'unit_stride' is given twice");
        return {};
      }
      unitStride = true;
    } else {
      parser.emitError(keyLoc, "expected 'align' or 'unit_stride', got '")
          << keyword << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ViewType>(loc, parser.getContext(), shape,
                                     elementType, align, unitStride);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType();
  if (getAlign())
    printer << ", align = " << getAlign();
  if (getUnitStride())
    printer << ", unit_stride";
  printer << ">";
}
