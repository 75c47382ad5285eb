// The PTX front end's view of a module: what checker/ptx/parse.cpp reads
// from nvcc's (or any compiler's) PTX text, before any of it is executed.
// Only the front end knows PTX's text; the explorer sees the IR it builds
// (checker/ptx/lower.cpp). docs/ptx.md lists the subset it reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pc::ptx {

// A PTX location and, where a `.loc` directive gave one, the source's.
struct Where {
  int line = 0, col = 0;             // in the PTX text, 1-based
  int src_file = -1;                 // index into Module::files; -1: no .loc
  int src_line = 0, src_col = 0;
};

struct Operand {
  // reg: a register (`reg`); special: %tid.x and the like (`name`);
  // imm: an integer; fimm: a floating-point literal (data); sym: a
  // variable's or function's name; addr: `[reg+imm]`, `[sym+imm]` or `[imm]`
  // (reg -1 where it has no register, `name` the symbol where it has one);
  // vec: `{a, b, ...}`; sink: `_`. An addr of a tensor copy,
  // `[map, {x, y}]`, holds the coordinates in `elems`.
  enum class Kind : std::uint8_t { reg, special, imm, fimm, sym, addr, vec, sink };
  Kind kind = Kind::imm;
  int reg = -1;
  std::string name;
  std::int64_t imm = 0;
  std::vector<Operand> elems;
  int reg2 = -1;  // `%p|%q`: setp's second predicate
};

struct Instr {
  std::string text;                  // the mnemonic with its qualifiers, as written ("mbarrier.arrive.release.cta.shared::cta.b64")
  std::vector<std::string> parts;    // the same split at '.' ("mbarrier", "arrive", "release", ...)
  int guard = -1;                    // `@%p` / `@!%p`: the predicate register
  bool guard_neg = false;
  std::vector<Operand> args;
  std::string target;                // bra: the label
  int target_index = -1;             // bra: the instruction it jumps to (resolved by the parser)
  // brx.idx: the instructions of its .branchtargets list, by index (the
  // list's label is `target`; resolved by the parser).
  std::vector<int> targets;
  Where at;
  [[nodiscard]] bool has(const std::string& q) const {
    for (std::size_t i = 1; i < parts.size(); ++i)
      if (parts[i] == q) return true;
    return false;
  }
};

struct Reg {
  std::string name;
  std::string type;                  // "pred", "b32", "u64", "f32", ...
};

enum class Space : std::uint8_t { shared, global, constant, local };

struct Var {
  std::string name;
  Space space = Space::shared;
  int align = 1;
  std::int64_t bytes = 0;            // 0 with `extern`: the dynamic shared memory
  bool is_extern = false;
  Where at;
};

struct Param {
  std::string name;
  std::string type;                  // "u64", "u32", ...; "b8" with .align for a struct passed by value
  std::int64_t bytes = 0;
};

struct Function {
  std::string name;
  bool entry = false;
  std::vector<Param> params;
  std::vector<Reg> regs;
  std::vector<Var> vars;             // function-scope .shared
  std::vector<Instr> code;
  std::map<std::string, int> labels; // label -> index into code
  int reqntid[3] = {0, 0, 0};        // .reqntid / .maxntid (0: not given)
  int cluster[3] = {0, 0, 0};        // .reqnctapercluster / .explicitcluster dims (0: not given)
  Where at;
};

struct Module {
  std::vector<Function> functions;
  std::vector<Var> vars;             // module-scope .shared / .global
  std::vector<std::string> files;    // `.file N "path"`: files[N]
  [[nodiscard]] const Function* find(const std::string& name) const {
    for (const Function& f : functions)
      if (f.name == name) return &f;
    return nullptr;
  }
};

}  // namespace pc::ptx
