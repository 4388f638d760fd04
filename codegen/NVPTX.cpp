//===- NVPTX.cpp - LLVM dialect -> PTX (in process) -> cubin (ptxas) ------===//

#include "codegen/NVPTX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>
#include <regex>

using namespace mlir;

namespace tessel::codegen {

static void initNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared-memory (and local, const) pointers, as nvcc and Triton
    // emit them: every shared address held across a loop costs one register
    // instead of two. The NVPTX backend reads this when it builds a target
    // machine's data layout.
    auto &options = llvm::cl::getRegisteredOptions();
    if (llvm::cl::Option *shortPtr = options.lookup("nvptx-short-ptr"))
      static_cast<llvm::cl::opt<bool> *>(shortPtr)->setValue(true);
  });
}

FailureOr<std::string> emitPTX(ModuleOp module, const TargetInfo &target,
                               std::string *llvmIR) {
  initNVPTX();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tessel");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");

  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return module.emitError("NVPTX target unavailable: ") << error;
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.name, target.ptxFeature, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return module.emitError("cannot create an NVPTX target machine for ")
           << target.name;
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  {
    std::string verifyErrors;
    llvm::raw_string_ostream os(verifyErrors);
    if (llvm::verifyModule(*llvmModule, &os))
      return module.emitError("invalid LLVM IR: ") << verifyErrors;
  }

  // The standard O3 pipeline with the NVPTX target's own passes registered.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*llvmModule, mam);

  if (llvmIR) {
    llvm::raw_string_ostream os(*llvmIR);
    llvmModule->print(os, nullptr);
  }

  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::AssemblyFile))
      return module.emitError("the NVPTX backend cannot emit assembly");
    codegen.run(*llvmModule);
  }
  return std::string(ptx.str());
}

std::string findPtxas() {
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

/// Parses `ptxas -v` output: per function, registers, shared memory, spills.
static std::vector<ResourceUsage> parseUsage(const std::string &log) {
  std::vector<ResourceUsage> out;
  std::regex function(R"(Compiling entry function '([^']+)')");
  std::regex spills(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::regex used(R"(Used (\d+) registers)");
  std::regex smem(R"((\d+) bytes smem)");
  std::istringstream lines(log);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, function)) {
      out.push_back({});
      out.back().kernel = m[1];
      continue;
    }
    if (out.empty())
      continue;
    if (std::regex_search(line, m, spills)) {
      out.back().stackBytes = std::stoll(m[1]);
      out.back().spillStores = std::stoll(m[2]);
      out.back().spillLoads = std::stoll(m[3]);
    }
    if (std::regex_search(line, m, used))
      out.back().registers = std::stoi(m[1]);
    if (std::regex_search(line, m, smem))
      out.back().sharedBytes = std::stoll(m[1]);
  }
  return out;
}

std::string assembleCubin(const std::string &ptx, const TargetInfo &target,
                          std::vector<char> &cubin,
                          std::vector<ResourceUsage> &usage) {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return "ptxas not found (install CUDA or put ptxas on PATH)";
  llvm::SmallString<128> ptxPath, cubinPath, logPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tessel", "ptx", fd, ptxPath))
    return "cannot create a temporary file";
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("tessel", "cubin", cubinPath);
  llvm::sys::fs::createTemporaryFile("tessel", "log", logPath);
  std::string arch = "-arch=" + target.name.str();
  llvm::SmallVector<llvm::StringRef> args = {ptxas,   arch, "-O3",    "-v",
                                             ptxPath, "-o", cubinPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &execError);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().str();
  std::string result;
  if (rc != 0) {
    result = "ptxas failed for " + target.name.str() + ": " +
             (execError.empty() ? log : execError);
  } else if (auto buffer = llvm::MemoryBuffer::getFile(cubinPath)) {
    cubin.assign((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
    usage = parseUsage(log);
  } else {
    result = "ptxas produced no cubin";
  }
  llvm::sys::fs::remove(ptxPath);
  llvm::sys::fs::remove(cubinPath);
  llvm::sys::fs::remove(logPath);
  return result;
}

} // namespace tessel::codegen
