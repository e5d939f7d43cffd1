// The PTX half of the fake libcuda (tests/fakes/fake_libcuda.c, built only for tests): an
// interpreter, so that a job which loads hand-written PTX with cuModuleLoadData and launches
// it with cuLaunchKernel really computes on a machine without a GPU, and the tests prove the
// kernels' arithmetic and the orchestration around them.
// It covers exactly what probes/resume/resume_kernels.ptx uses: .version/.target/.address_size,
// `//` comments, `.visible .entry NAME(.param .u64 ...)` with a body of .reg declarations
// (`%d<12>` ranges too), labels, `@%p` predicates, and the instructions in kTable below;
// integer immediates in decimal or 0x hex, f64 ones as 0d bit patterns. Anything else makes
// cuModuleLoadData fail with CUDA_ERROR_INVALID_PTX (218), so a kernel edited beyond what the
// fake understands fails loudly and never computes something else. A launch runs every thread
// of a one-dimensional grid, one after another; global addresses are host pointers (the fake
// cuMemAlloc is malloc). Runaway kernels end with 700 after 2^32 instructions; a null or
// misaligned global access and a remainder by zero (undefined in PTX) end with 700 too.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef FAKE_CUDA_INCOMPLETE
namespace {

enum Op { LdParam, Cvta, MovSpecial, Mov, CvtU64U32, MadWideU32, SetpGeU64, Bra, Shl, Add, Xor, Shr,
          MulLo, Rem, LdGlobal, StGlobal, CvtF64U64, MulF64, AddF64, DivF64, Ret };

// Operand letters: p predicate register; w 32-bit register; x 64-bit register; i 64-bit register
// or integer immediate; W 32-bit register or integer immediate; f 64-bit register or 0d
// immediate; S %ctaid.x/%ntid.x/%tid.x; P [parameter]; M [64-bit register]; L label.
struct Form { const char* name; Op op; const char* operands; };
const Form kTable[] = {
    {"ld.param.u64", LdParam, "xP"},    {"cvta.to.global.u64", Cvta, "xx"}, {"mov.u32", MovSpecial, "wS"},
    {"mov.u64", Mov, "xi"},             {"mov.f64", Mov, "xf"},             {"cvt.u64.u32", CvtU64U32, "xw"},
    {"mad.wide.u32", MadWideU32, "xWWi"}, {"setp.ge.u64", SetpGeU64, "pii"}, {"bra", Bra, "L"},
    {"shl.b64", Shl, "xiW"},            {"add.u64", Add, "xii"},            {"xor.b64", Xor, "xii"},
    {"shr.u64", Shr, "xiW"},            {"mul.lo.u64", MulLo, "xii"},       {"rem.u64", Rem, "xii"},
    {"ld.global.u64", LdGlobal, "xM"},  {"st.global.u64", StGlobal, "Mi"},  {"st.global.f64", StGlobal, "Mf"},
    {"cvt.rn.f64.u64", CvtF64U64, "xx"}, {"mul.rn.f64", MulF64, "xff"},     {"add.rn.f64", AddF64, "xff"},
    {"div.rn.f64", DivF64, "xff"},      {"ret", Ret, ""},
};

struct Operand { bool imm = true; uint64_t v = 0; };  // a register (imm false: v is its index), or a value
struct Insn { Op op; int pred = -1; Operand a[4]; };
struct Function { std::string name; size_t params = 0; size_t regs = 0; std::vector<Insn> code; };
struct Module { std::vector<std::unique_ptr<Function>> functions; };

struct BadPtx : std::runtime_error { using std::runtime_error::runtime_error; };

// Words are names, opcodes, registers and numbers (letters, digits, . _ % $); the rest is punctuation.
struct Lexer {
  const char* p = nullptr;
  int line = 1;
  std::string tok;
  bool word(char c) { return std::isalnum((unsigned char)c) || c == '.' || c == '_' || c == '%' || c == '$'; }
  [[noreturn]] void fail(const std::string& what) { throw BadPtx("line " + std::to_string(line) + ": " + what); }
  bool next() {  // the next token into tok; false at the end
    for (;;) {
      while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') line += *p++ == '\n';
      if (p[0] != '/' || p[1] != '/') break;
      while (*p && *p != '\n') ++p;
    }
    if (!*p) return tok.clear(), false;
    const char* s = p;
    if (word(*p)) while (word(*p)) ++p;
    else if (std::strchr("(){}[],;:@<>", *p)) ++p;
    else fail(std::string("unexpected character '") + *p + "'");
    tok.assign(s, p);
    return true;
  }
  std::string take() { if (!next()) fail("unexpected end of text"); return tok; }
  void expect(const char* t) { if (take() != t) fail("expected '" + std::string(t) + "', found '" + tok + "'"); }
};

// Digits of s from skip on in base 10 or 16, all of them, without overflow.
bool parse_u64(const std::string& s, unsigned base, size_t skip, uint64_t* v) {
  if (s.size() <= skip) return false;
  *v = 0;
  for (size_t i = skip; i < s.size(); ++i) {
    int c = std::tolower((unsigned char)s[i]);
    unsigned digit = std::isdigit(c) ? unsigned(c - '0') : (base == 16 && std::isxdigit(c)) ? unsigned(c - 'a' + 10) : base;
    if (digit >= base || *v > (UINT64_MAX - digit) / base) return false;
    *v = *v * base + digit;
  }
  return true;
}
bool int_imm(const std::string& s, uint64_t* v) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_u64(s, 16, 2, v);
  return parse_u64(s, 10, 0, v);
}
bool f64_imm(const std::string& s, uint64_t* v) {
  return s.size() == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D') && parse_u64(s, 16, 2, v);
}

struct Parser {
  Lexer lx;
  Function* f = nullptr;
  std::map<std::string, std::pair<size_t, char>> regs;  // name -> (index, 'p' / 'w' / 'x')
  std::map<std::string, size_t> params, labels;
  std::vector<std::pair<size_t, std::string>> branches;  // (instruction, label), resolved at the '}'

  void declare(const std::string& name, char cls) {
    if (!regs.emplace(name, std::make_pair(f->regs++, cls)).second) lx.fail("register " + name + " declared twice");
  }
  void reg_decl() {  // after .reg: .TYPE NAME[<N>] {, NAME[<N>]} ;
    std::string t = lx.take();
    char cls = t == ".pred" ? 'p' : (t == ".b32" || t == ".u32") ? 'w' : (t == ".b64" || t == ".u64" || t == ".f64") ? 'x' : 0;
    if (!cls) lx.fail("register type " + t + " is not supported");
    for (;;) {
      std::string name = lx.take();
      if (name.size() < 2 || name[0] != '%') lx.fail("bad register name " + name);
      std::string sep = lx.take();
      if (sep == "<") {
        uint64_t n = 0;
        if (!int_imm(lx.take(), &n) || n == 0 || n > 4096) lx.fail("bad register count " + lx.tok);
        lx.expect(">");
        for (uint64_t i = 0; i < n; ++i) declare(name + std::to_string(i), cls);
        sep = lx.take();
      } else {
        declare(name, cls);
      }
      if (sep == ";") return;
      if (sep != ",") lx.fail("expected ',' or ';' in .reg, found " + sep);
    }
  }
  Operand reg(const std::string& s, const char* classes) {
    auto it = regs.find(s);
    if (it == regs.end()) lx.fail("unknown register " + s);
    if (!std::strchr(classes, it->second.second)) lx.fail("register " + s + " has the wrong type here");
    return Operand{false, it->second.first};
  }
  Operand operand(char kind) {
    std::string s = lx.take();
    Operand o;
    switch (kind) {
      case 'p': return reg(s, "p");
      case 'w': return reg(s, "w");
      case 'x': return reg(s, "x");
      case 'i': case 'W': case 'f':
        if (s[0] == '%') return reg(s, kind == 'W' ? "w" : "x");
        if (!(kind == 'f' ? f64_imm(s, &o.v) : int_imm(s, &o.v))) lx.fail("bad immediate " + s);
        if (kind == 'W' && o.v > 0xffffffffu) lx.fail("immediate " + s + " does not fit 32 bits");
        o.imm = true;
        return o;
      case 'S':
        if (s == "%ctaid.x") o.v = 0; else if (s == "%ntid.x") o.v = 1; else if (s == "%tid.x") o.v = 2;
        else lx.fail("special register " + s + " is not supported");
        return o;
      case 'P': case 'M': {
        if (s != "[") lx.fail("expected '[', found " + s);
        std::string n = lx.take();
        if (kind == 'M') o = reg(n, "x");
        else if (params.count(n)) o.v = params[n];
        else lx.fail("unknown parameter " + n);
        lx.expect("]");
        return o;
      }
      default:  // 'L'
        branches.emplace_back(f->code.size() - 1, s);
        return o;
    }
  }
  void instruction(std::string opcode, int pred) {
    const Form* form = nullptr;
    for (const Form& fm : kTable) if (opcode == fm.name) form = &fm;
    if (!form) lx.fail("instruction " + opcode + " is not supported");
    f->code.push_back(Insn{form->op, pred, {}});
    for (size_t i = 0; form->operands[i]; ++i) {
      if (i) lx.expect(",");
      Operand o = operand(form->operands[i]);
      f->code.back().a[i] = o;
    }
    lx.expect(";");
  }
  void body() {
    for (;;) {
      std::string t = lx.take();
      if (t == "}") break;
      if (t == ".reg") { reg_decl(); continue; }
      int pred = -1;
      if (t == "@") {
        pred = (int)reg(lx.take(), "p").v;
        t = lx.take();
      }
      if (pred < 0 && t[0] != '.' && t[0] != '%' && lx.next()) {
        if (lx.tok == ":") {  // a label
          if (!labels.emplace(t, f->code.size()).second) lx.fail("label " + t + " defined twice");
          continue;
        }
        lx.p -= lx.tok.size();  // not a label: give the token back
      }
      instruction(t, pred);
    }
    for (auto& [insn, name] : branches) {
      auto it = labels.find(name);
      if (it == labels.end()) lx.fail("unknown label " + name);
      f->code[insn].a[0].v = it->second;
    }
  }
  void entry(Module& m) {  // after .entry
    auto fn = std::make_unique<Function>();
    f = fn.get();
    f->name = lx.take();
    for (auto& other : m.functions) if (other->name == f->name) lx.fail("entry " + f->name + " defined twice");
    regs.clear(); params.clear(); labels.clear(); branches.clear();
    lx.expect("(");
    for (std::string t = lx.take(); t != ")"; t = lx.take()) {
      if (f->params) { if (t != ",") lx.fail("expected ',' between parameters"); t = lx.take(); }
      if (t != ".param") lx.fail("expected .param, found " + t);
      lx.expect(".u64");
      if (!params.emplace(lx.take(), f->params++).second) lx.fail("parameter " + lx.tok + " declared twice");
    }
    lx.expect("{");
    body();
    m.functions.push_back(std::move(fn));
  }
  void module(Module& m) {
    lx.expect(".version");
    std::string v = lx.take();
    if (v.find_first_not_of("0123456789.") != std::string::npos) lx.fail("bad .version " + v);
    while (lx.next()) {
      if (lx.tok == ".target") lx.take();
      else if (lx.tok == ".address_size") { if (lx.take() != "64") lx.fail(".address_size must be 64"); }
      else if (lx.tok == ".visible") { lx.expect(".entry"); entry(m); }
      else if (lx.tok == ".entry") entry(m);
      else lx.fail("directive " + lx.tok + " is not supported");
    }
  }
};

constexpr uint64_t kInstructionBudget = uint64_t(1) << 32;

double as_f64(uint64_t b) { double d; std::memcpy(&d, &b, 8); return d; }
uint64_t bits(double d) { uint64_t b; std::memcpy(&b, &d, 8); return b; }

// Runs one thread; 0, or 700 on a fault or when the launch's instruction budget is spent.
int run_thread(const Function& f, const uint64_t* args, const uint32_t special[3], std::vector<uint64_t>& r,
               uint64_t* executed) {
  std::fill(r.begin(), r.end(), 0);
  auto val = [&](const Operand& o) { return o.imm ? o.v : r[o.v]; };
  for (size_t pc = 0; pc < f.code.size();) {
    if (++*executed > kInstructionBudget) return 700;
    const Insn& in = f.code[pc++];
    if (in.pred >= 0 && !r[(size_t)in.pred]) continue;
    uint64_t scratch, &d = in.op == Bra || in.op == Ret ? scratch : r[in.a[0].v];
    uint64_t a = val(in.a[1]), b = val(in.a[2]);
    switch (in.op) {
      case LdParam: d = args[in.a[1].v]; break;
      case Cvta: case Mov: d = a; break;
      case MovSpecial: d = special[in.a[1].v]; break;
      case CvtU64U32: d = (uint32_t)a; break;
      case MadWideU32: d = (uint64_t)(uint32_t)a * (uint32_t)b + val(in.a[3]); break;
      case SetpGeU64: d = a >= b; break;
      case Bra: pc = in.a[0].v; break;
      case Shl: d = b >= 64 ? 0 : a << b; break;  // PTX clamps shift amounts to the width
      case Shr: d = b >= 64 ? 0 : a >> b; break;
      case Add: d = a + b; break;
      case Xor: d = a ^ b; break;
      case MulLo: d = a * b; break;
      case Rem: if (!b) return 700; d = a % b; break;
      case CvtF64U64: d = bits((double)a); break;
      case MulF64: d = bits(as_f64(a) * as_f64(b)); break;
      case AddF64: d = bits(as_f64(a) + as_f64(b)); break;
      case DivF64: d = bits(as_f64(a) / as_f64(b)); break;
      case LdGlobal: case StGlobal: {
        uint64_t addr = in.op == LdGlobal ? a : r[in.a[0].v];
        if (addr == 0 || addr % 8) return 700;
        if (in.op == LdGlobal) std::memcpy(&d, (const void*)(uintptr_t)addr, 8);
        else std::memcpy((void*)(uintptr_t)addr, &a, 8);
        break;
      }
      case Ret: return 0;
    }
  }
  return 0;
}

}  // namespace

extern "C" {

// fake_libcuda.c: the slow_hbm fault (GA_FAKE_GPU_FAULTS) also slows kernels.
void fake_cuda_hbm_work_done(int dev, double start, size_t bytes);
double fake_cuda_now(void);
int fake_cuda_current_device(void);
int fake_cuda_gpu_has_sdc(int dev);

int cuModuleLoadData(void** module, const void* image) {
  if (!module || !image) return 1;
  try {
    auto m = std::make_unique<Module>();
    Parser p;
    p.lx.p = (const char*)image;
    p.module(*m);
    *module = m.release();
    return 0;
  } catch (const BadPtx& e) {
    std::fprintf(stderr, "fake libcuda: cuModuleLoadData: PTX %s\n", e.what());
    return 218;
  } catch (...) {
    return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  }
}

int cuModuleUnload(void* module) {
  delete (Module*)module;
  return 0;
}

int cuModuleGetFunction(void** function, void* module, const char* name) {
  if (!function || !module || !name) return 1;
  for (auto& f : ((Module*)module)->functions)
    if (f->name == name) return *function = f.get(), 0;
  return 500;
}

int cuLaunchKernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shmem, void* stream, void** params, void** extra) {
  (void)shmem; (void)stream;
  const Function* f = (const Function*)function;
  if (!f || gx == 0 || bx == 0 || bx > 1024 || gy != 1 || gz != 1 || by != 1 || bz != 1 || extra) return 1;
  if (f->params && !params) return 1;
  std::vector<uint64_t> args(f->params), r(f->regs);
  for (size_t i = 0; i < f->params; ++i) std::memcpy(&args[i], params[i], 8);
  uint64_t executed = 0;
  const double start = fake_cuda_now();
  for (uint32_t block = 0; block < gx; ++block)
    for (uint32_t thread = 0; thread < bx; ++thread) {
      const uint32_t special[3] = {block, bx, thread};
      if (int e = run_thread(*f, args.data(), special, r, &executed)) return e;
    }
  fake_cuda_hbm_work_done(fake_cuda_current_device(), start, 0);
  // GA_FAKE_GPU_FAULTS=HOST/gpu:K=sdc: the sdc kernel's second launch on that GPU computes one
  // wrong bit (fake_gpu_faults.h); its params are (in, out, n, rounds).
  const int dev = fake_cuda_current_device();
  if (f->name == "ga_sdc_mix" && fake_cuda_gpu_has_sdc(dev)) {
    static int launches[2];
    if (dev >= 0 && dev < 2 && ++launches[dev] == 2 && args[2] > 0) {
      uint64_t* out = (uint64_t*)(uintptr_t)args[1];
      out[args[2] / 3] ^= uint64_t(1) << 17;
    }
  }
  return 0;
}

}  // extern "C"
#endif
