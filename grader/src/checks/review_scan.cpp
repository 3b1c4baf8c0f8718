// For the instructor to review: what the compiled student objects do that lab code does not need
// (see review_scan.hpp). Everything is read with objdump, run as a confined child process (the
// objects are the compiler's output from untrusted sources, hence the limits).
#include "checks/review_scan.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/symbol_scan.hpp"
#include "cudalabs/course/forbid_rules.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {
namespace {

using cudalabs::config::glob_match;

// ---- what the compiled code refers to: the one table (edit here to review more) ------------------
//
// Each row: globs matched against the object's undefined symbols (raw, and demangled for C++
// names), what it is and why it deserves a look. `Always` rows are listed whenever the code
// refers to one; `WithProcPath` rows are ordinary file access, listed only when the same object
// also carries /proc text or pieces of a path (the notes below), which is what turns them into
// "write /proc/self/mem". Functions that the course's `forbid:` rules refuse (open, fopen,
// dlopen...) stop a grade before the review; they are here too because a lab may `allow:` them,
// and this list does not depend on the YAML. Not _GLOBAL_OFFSET_TABLE_: GCC refers to it from
// ordinary position-independent code (a file that uses std::cout, for one).
enum class When { Always, WithProcPath };

struct CalledFunction {
  std::vector<const char*> patterns;
  const char* what;
  const char* why;
  When when;
};

const std::vector<CalledFunction>& called_functions() {
  static const std::vector<CalledFunction> table = {
      {{"syscall"},
       "raw system call",
       "makes any system call by its number, past the C library and the lab's symbol rules",
       When::Always},
      {{"mprotect", "pkey_mprotect"},
       "changing memory protection",
       "makes the test program's code or read-only data (its GOT, the clock, the checker) writable, to patch it",
       When::Always},
      {{"mmap", "mmap64", "mremap"},
       "mapping memory directly",
       "can map executable memory, or map over the test program's own pages (look for PROT_EXEC or MAP_FIXED); "
       "lab code allocates with cudaMalloc or new",
       When::Always},
      {{"process_vm_readv", "process_vm_writev", "ptrace"},
       "reading or writing a process's memory",
       "reads or changes the memory of a process, the test program's included (the kernel's filter refuses "
       "these in a test, so their use is an attempt)",
       When::Always},
      {{"prctl", "seccomp"},
       "changing the process's own controls",
       "prctl and seccomp change how the process is confined, dumped or traced; lab code never needs them",
       When::Always},
      {{"dlopen*", "dlmopen", "dlsym", "dlvsym", "dladdr*", "dlinfo", "dl_iterate_phdr", "getauxval", "_r_debug",
        "_DYNAMIC", "__ehdr_start", "__executable_start"},
       "walking the loaded libraries",
       "finds the test program's functions, GOT and data at run time, past the symbol rules",
       When::Always},
      {{"open", "open64", "openat", "openat64", "__open*", "creat", "creat64", "fopen", "fopen64", "freopen*",
        "std::basic_*fstream*", "std::basic_filebuf*::open*"},
       "opening files",
       "/proc/self/mem opened for writing lets the code patch the test program's memory, /proc/self/maps tells it "
       "where everything is",
       When::WithProcPath},
      {{"pwrite*", "write", "writev", "fwrite", "lseek*", "fseek*", "pread*", "read", "readv", "fread"},
       "reading or writing files",
       "/proc/self/mem is written at the address to patch (pwrite, or lseek then write), /proc/self/maps is read to "
       "find that address",
       When::WithProcPath},
  };
  return table;
}

// Text that names a /proc file (lower case). Lab code has no use for any of it; kernel names,
// format strings and error messages contain no '/', so none matches them.
const char* const kProcMarkers[] = {"/proc", "proc/", "self/", "/self", "/mem", "/maps", "pagemap", "task/"};

// nvcc's constructor that registers an object's fat binary (one per object with device code).
// Its name is taken in every .cu file (a student function of that name does not compile there),
// and it is recognised only in an object with a fat binary and only when it calls nothing but
// the CUDA runtime's registration functions (__cudaRegister*, nvcc's __nv_* helpers) and atexit.
constexpr const char* kCudaRegistration = "_ZL24__sti____cudaRegisterAllv";

// ---- small text helpers ---------------------------------------------------------------------------

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

bool is_hex(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c); });
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::string without_version(std::string symbol) {
  symbol.erase(std::min(symbol.find('@'), symbol.size()));
  return symbol;
}

// "open-0x4", ".text.startup+0x0000000000000070" -> the name and the offset.
std::pair<std::string, unsigned long long> split_addend(const std::string& value) {
  for (const char sign : {'+', '-'}) {
    const std::size_t at = value.rfind(std::string(1, sign) + "0x");
    if (at == std::string::npos || at == 0) continue;
    const std::string digits = value.substr(at + 3);
    if (!is_hex(digits) || digits.size() > 16) continue;
    const unsigned long long offset = std::stoull(digits, nullptr, 16);
    return {value.substr(0, at), sign == '+' ? offset : 0};
  }
  return {value, 0};
}

std::string quoted_list(const std::vector<std::string>& items, std::size_t most = 3) {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) {
    text += (i ? ", " : "") + fmt::format("\"{}\"", items[i].size() > 60 ? items[i].substr(0, 57) + "..." : items[i]);
  }
  if (items.size() > most) text += fmt::format(" and {} more", items.size() - most);
  return text;
}

// How a function or symbol is named for an instructor: demangled; GCC's function that initialises a
// file's global objects (_GLOBAL__sub_I_<file>) by what it does.
std::string display_name(const std::string& symbol) {
  if (starts_with(symbol, "_GLOBAL__sub_I_")) return "the initialisation of its global objects";
  return demangle(symbol);
}

std::string readable_list(const std::vector<std::string>& symbols, std::size_t most = 4) {
  std::vector<std::string> names;
  for (const auto& symbol : symbols) {
    std::string name = display_name(symbol);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < most; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > most) text += fmt::format(" and {} more", names.size() - most);
  return text;
}

bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-';
}

bool path_like(const std::string& text) {
  return !text.empty() && text.size() <= 16 && std::all_of(text.begin(), text.end(), path_char);
}

bool has_proc_marker(const std::string& text) {
  return std::any_of(std::begin(kProcMarkers), std::end(kProcMarkers),
                     [&](const char* marker) { return text.find(marker) != std::string::npos; });
}

// ---- objdump -h -t -r -w: sections, undefined symbols, constructor relocations ----------------------

struct Section {
  std::string name;
  bool alloc = false, code = false, contents = false;
};

struct ConstructorEntry {
  std::string section;  // ".init_array", ".init_array.00101", ".ctors", ".preinit_array"
  std::string target;   // "name" or ".text.startup" (with `offset`)
  unsigned long long offset = 0;
};

struct ObjectHeaders {
  std::vector<Section> sections;
  std::vector<std::string> undefined;
  std::vector<ConstructorEntry> constructors;
};

bool constructor_section(const std::string& name) {
  return starts_with(name, ".init_array") || starts_with(name, ".ctors") || starts_with(name, ".preinit_array");
}

ObjectHeaders parse_headers(const std::string& output) {
  ObjectHeaders headers;
  enum class Part { None, Sections, Symbols, Relocations } part = Part::None;
  std::string relocated;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (starts_with(line, "Sections:")) {
      part = Part::Sections;
      continue;
    }
    if (starts_with(line, "SYMBOL TABLE:")) {
      part = Part::Symbols;
      continue;
    }
    if (starts_with(line, "RELOCATION RECORDS FOR [")) {
      part = Part::Relocations;
      relocated = line.substr(24, line.rfind("]:") == std::string::npos ? std::string::npos : line.rfind("]:") - 24);
      continue;
    }
    const std::vector<std::string> words = words_of(line);
    if (words.empty()) continue;
    if (part == Part::Sections) {
      // "  14 .rodata.str1.8  0000119a  0000...  0000...  001f17e8  2**3  CONTENTS, ALLOC, LOAD, READONLY, DATA"
      const bool numbered = std::all_of(words[0].begin(), words[0].end(),
                                        [](unsigned char c) { return std::isdigit(c) != 0; });
      if (words.size() < 8 || !numbered) continue;
      if (!starts_with(words[6], "2**")) continue;
      Section section{words[1]};
      for (std::size_t i = 7; i < words.size(); ++i) {
        const std::string flag = words[i].substr(0, words[i].find(','));
        section.alloc = section.alloc || flag == "ALLOC";
        section.code = section.code || flag == "CODE";
        section.contents = section.contents || flag == "CONTENTS";
      }
      headers.sections.push_back(std::move(section));
    } else if (part == Part::Symbols) {
      // "0000000000000000         *UND*	0000000000000000 open"
      if (line.find("*UND*") == std::string::npos || words.back() == "*UND*") continue;
      std::string name = without_version(words.back());
      if (!name.empty() && !is_hex(name)) headers.undefined.push_back(std::move(name));
    } else if (part == Part::Relocations && constructor_section(relocated)) {
      // "0000000000000008 R_X86_64_64       .text.startup+0x0000000000000010"
      if (words.size() < 3 || !is_hex(words[0]) || !starts_with(words[1], "R_")) continue;
      auto [target, offset] = split_addend(words[2]);
      headers.constructors.push_back({relocated, target, offset});
    }
  }
  return headers;
}

// ---- running objdump ----------------------------------------------------------------------------------

struct ToolRun {
  bool missing = false;  // the program is not installed
  bool complete = false;
  std::string output;
  std::string problem;  // why the output is missing or incomplete
};

ToolRun run_objdump(const std::string& objdump, std::vector<std::string> arguments, const std::string& object,
                    const ResourceLimits& limits) {
  ProcessSpec spec;
  spec.argv = {objdump};
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  spec.argv.push_back(object);
  spec.timeout_seconds = 120;
  spec.max_output_bytes = 64ull << 20;
  spec.limits = limits;
  const ProcessResult process = run_process(spec);
  ToolRun run;
  run.output = process.output;
  if (!process.started || (process.exited && process.exit_code == 127 &&
                           process.output.find("cannot run") != std::string::npos)) {
    run.missing = true;
    std::string said = process.output.substr(0, 200);
    while (!said.empty() && std::isspace(static_cast<unsigned char>(said.back()))) said.pop_back();
    run.problem = fmt::format("{} could not be started ({})", objdump, said);
  } else if (!process.succeeded()) {
    run.problem = fmt::format("{} {}", objdump, process.describe_end(spec.timeout_seconds));
  } else if (process.output_bytes_dropped > 0) {
    run.problem = fmt::format("{}'s listing was longer than {} MiB and was cut", objdump, spec.max_output_bytes >> 20);
  } else {
    run.complete = true;
  }
  return run;
}

// ---- one object ---------------------------------------------------------------------------------------

// "objects/vector_add.cu.o" -> "vector_add.cu": the source the object was compiled from.
std::string source_name(const std::string& object) {
  std::string name = std::filesystem::path(object).filename().string();
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ".o") == 0) name.erase(name.size() - 2);
  return name;
}

std::string where_in(const std::string& source, const std::vector<std::string>& functions) {
  if (functions.empty()) return source;
  return fmt::format("{}, in {}", source, readable_list(functions));
}

template <typename T>
void add_unique(std::vector<T>& items, const T& item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}

class ObjectReview {
 public:
  ObjectReview(std::string source, ObjectHeaders headers, std::vector<DisassembledFunction> functions,
               std::vector<std::string> data_strings)
      : source_(std::move(source)),
        headers_(std::move(headers)),
        functions_(std::move(functions)),
        data_strings_(std::move(data_strings)) {}

  std::vector<ReviewNote> notes() {
    system_call_instructions();
    const bool proc_text = proc_paths_found();
    const std::vector<std::string> pieces = path_pieces();
    called(proc_text, pieces);
    constructors();
    return std::move(notes_);
  }

 private:
  void system_call_instructions() {
    std::map<std::string, std::vector<std::string>> by_instruction;
    for (const auto& function : functions_) {
      for (const auto& instruction : function.system_calls) add_unique(by_instruction[instruction], function.symbol);
    }
    for (const auto& [instruction, in] : by_instruction) {
      notes_.push_back({fmt::format("raw system call instruction ({})", instruction), where_in(source_, in),
                        "a system call made by the code itself (inline assembly, however it is spelled), past the C "
                        "library and the lab's symbol rules: nothing but the kernel's filter sees which call it is"});
    }
  }

  // /proc text in the data sections or stored by the code. Returns whether there was any.
  bool proc_paths_found() {
    bool found = false;
    const std::vector<std::string> in_data = proc_paths(data_strings_);
    if (!in_data.empty()) {
      found = true;
      const bool whole = std::all_of(in_data.begin(), in_data.end(), [&](const std::string& text) {
        return std::find(data_strings_.begin(), data_strings_.end(), text) != data_strings_.end();
      });
      notes_.push_back({fmt::format("/proc path ({}{})", quoted_list(in_data), whole ? "" : ", put together from pieces"),
                        fmt::format("{}, in its data", source_),
                        "lab code never names /proc: /proc/self/mem lets code write into the test program's memory "
                        "and /proc/self/maps shows where its code and data are (pieces of text are shown put "
                        "together in the order they are stored)"});
    }
    for (const auto& function : functions_) {
      const std::vector<std::string> stored = proc_paths({function.stored_text});
      if (stored.empty()) continue;
      found = true;
      notes_.push_back({fmt::format("/proc path built in code ({})", quoted_list(stored)),
                        where_in(source_, {function.symbol}),
                        "the code writes these characters into memory one constant at a time (a char array, a "
                        "short string): a /proc path that appears nowhere as text; /proc/self/mem lets code write "
                        "into the test program's memory"});
    }
    return found;
  }

  // Short path-like strings with a '/' ("/pr", "oc/se"): what a path put together at run time
  // leaves behind. Listed only beside file access (see called()). At most 8 characters: a whole
  // path that a lab allowed to be opened ("out/image.ppm") is no piece.
  std::vector<std::string> path_pieces() const {
    const auto piece = [](const std::string& text) {
      return text.size() <= 8 && path_like(text) && text.find('/') != std::string::npos;
    };
    std::vector<std::string> pieces;
    for (const auto& text : data_strings_) {
      if (piece(text)) add_unique(pieces, text);
    }
    for (const auto& function : functions_) {
      std::string run;
      for (const char c : function.stored_text + '\0') {
        if (path_char(c)) {
          run += c;
          continue;
        }
        if (run.size() >= 2 && piece(run)) add_unique(pieces, run);
        run.clear();
      }
    }
    return pieces;
  }

  void called(bool proc_text, const std::vector<std::string>& pieces) {
    for (const CalledFunction& row : called_functions()) {
      std::vector<std::string> found;
      for (const auto& symbol : headers_.undefined) {
        const std::string readable = demangle(symbol);
        const bool matches = std::any_of(row.patterns.begin(), row.patterns.end(), [&](const char* pattern) {
          return glob_match(pattern, symbol) || glob_match(pattern, readable);
        });
        if (matches) add_unique(found, symbol);
      }
      if (found.empty()) continue;
      if (row.when == When::WithProcPath && !proc_text && pieces.empty()) continue;
      std::vector<std::string> in;
      for (const auto& function : functions_) {
        for (const auto& symbol : found) {
          if (std::find(function.references.begin(), function.references.end(), symbol) !=
              function.references.end()) {
            add_unique(in, function.symbol);
          }
        }
      }
      std::string where = where_in(source_, in);
      if (in.empty()) where += " (referred to from its data, not called directly)";
      std::string why = row.why;
      if (row.when == When::WithProcPath && proc_text) {
        why = fmt::format("beside the /proc path listed for this file: {}", row.why);
      } else if (row.when == When::WithProcPath) {
        why = fmt::format("beside pieces of a path ({}): a path put together at run time, like /proc/self/mem, "
                          "leaves such pieces behind, so check which file it opens; {}",
                          quoted_list(pieces, 5), row.why);
      }
      notes_.push_back({fmt::format("{} ({})", row.what, readable_list(found)), std::move(where), std::move(why)});
    }
  }

  const DisassembledFunction* function_at(const ConstructorEntry& entry) const {
    const DisassembledFunction* best = nullptr;
    for (const auto& function : functions_) {
      if (!starts_with(entry.target, ".")) {
        if (function.symbol == entry.target) return &function;
        continue;
      }
      if (function.section != entry.target || function.address > entry.offset) continue;
      if (!best || function.address > best->address) best = &function;
    }
    return best;
  }

  bool has_section(const std::string& name) const {
    return std::any_of(headers_.sections.begin(), headers_.sections.end(),
                       [&](const Section& section) { return section.name == name; });
  }

  // nvcc's registration of this object's fat binary (see kCudaRegistration).
  bool cuda_registration(const DisassembledFunction& function) const {
    if (function.symbol != kCudaRegistration || !has_section(".nv_fatbin")) return false;
    return std::all_of(function.calls.begin(), function.calls.end(), [](const std::string& callee) {
      return starts_with(callee, "__cuda") || callee.find("__nv") != std::string::npos || callee == "atexit";
    });
  }

  // What GCC < 13 emits in every file that includes <iostream>: construct std::ios_base::Init,
  // register its destructor. Nothing else, and nothing written to memory.
  static bool iostream_initialiser(const DisassembledFunction& function) {
    static const std::set<std::string> kIostream = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev",
                                                    "__cxa_atexit", "__dso_handle", "_ZStL8__ioinit"};
    return function.instructions <= 12 && !function.writes_memory && function.system_calls.empty() &&
           std::all_of(function.references.begin(), function.references.end(),
                       [](const std::string& symbol) { return kIostream.count(symbol) > 0; });
  }

  void constructors() {
    std::vector<std::string> attribute, globals, preinit, unknown;
    std::vector<std::string> global_calls;
    bool registration_seen = false;
    for (const ConstructorEntry& entry : headers_.constructors) {
      const DisassembledFunction* function = function_at(entry);
      if (!function) {
        add_unique(unknown, entry.offset ? fmt::format("{}+0x{:x}", entry.target, entry.offset) : entry.target);
        continue;
      }
      if (!registration_seen && cuda_registration(*function)) {
        registration_seen = true;  // one per object
        continue;
      }
      if (starts_with(entry.section, ".preinit_array")) {
        add_unique(preinit, function->symbol);
      } else if (starts_with(function->symbol, "_GLOBAL__sub_I_")) {
        if (iostream_initialiser(*function)) continue;
        add_unique(globals, function->symbol);
        for (const auto& callee : function->calls) {
          if (callee != "__cxa_atexit" && callee != "_Unwind_Resume" && !starts_with(callee, "__cxa_guard")) {
            add_unique(global_calls, callee);
          }
        }
      } else {
        add_unique(attribute, function->symbol);
      }
    }
    const char* why = "runs when the library is loaded, before the test program's main and before any test: the "
                      "moment to change the test program unseen (a lookup table built at load is the rare honest "
                      "use)";
    if (!attribute.empty()) {
      notes_.push_back({"static constructor (constructor attribute or section)", where_in(source_, attribute), why});
    }
    if (!globals.empty()) {
      const std::string calls =
          global_calls.empty() ? "" : fmt::format(", calling {}", readable_list(global_calls));
      notes_.push_back({"static constructor (global objects initialised with code)",
                        fmt::format("{}, in the initialisation of its global objects{}", source_, calls), why});
    }
    if (!preinit.empty()) {
      notes_.push_back({"static constructor (.preinit_array)", where_in(source_, preinit), why});
    }
    if (!unknown.empty()) {
      notes_.push_back({"static constructor", fmt::format("{}, at {}", source_, fmt::join(unknown, ", ")), why});
    }
    for (const auto& section : headers_.sections) {
      if (section.code && (section.name == ".init" || section.name == ".fini")) {
        notes_.push_back({fmt::format("code in the {} section", section.name), source_,
                          "the dynamic linker runs it when the library is loaded (or unloaded), outside any "
                          "function the code defines"});
      }
    }
  }

  std::string source_;
  ObjectHeaders headers_;
  std::vector<DisassembledFunction> functions_;
  std::vector<std::string> data_strings_;
  std::vector<ReviewNote> notes_;
};

// Sections whose bytes are searched for text: allocated data of the host code. Not the fat binary
// (device code; its PTX names the source path), unwinding tables, constructor arrays or notes.
bool text_section(const Section& section) {
  if (!section.alloc || !section.contents || section.code) return false;
  for (const char* skipped : {".nv", "__nv", ".eh_frame", ".gcc_except_table", ".init_array", ".fini_array",
                              ".preinit_array", ".ctors", ".dtors", ".note", ".group", ".data.rel.local.DW.ref."}) {
    if (starts_with(section.name, skipped)) return false;
  }
  return true;
}

}  // namespace

// ---- parsers ---------------------------------------------------------------------------------------------

std::vector<DisassembledFunction> parse_disassembly(const std::string& objdump_d) {
  static const std::set<std::string> kPrefixes = {"lock", "rep", "repz", "repnz", "repe", "repne", "notrack", "bnd",
                                                  "data16", "data32", "addr32", "cs", "ds", "es", "fs", "gs", "ss"};
  static const std::set<std::string> kStores = {"mov", "movb", "movw", "movl", "movq", "movabs"};
  std::vector<DisassembledFunction> functions;
  std::string section;
  std::istringstream lines(objdump_d);
  for (std::string line; std::getline(lines, line);) {
    if (starts_with(line, "Disassembly of section ")) {
      section = line.substr(23);
      if (!section.empty() && section.back() == ':') section.pop_back();
      continue;
    }
    // "0000000000000000 <_ZN7student3rawEl>:"
    const std::size_t open = line.find(" <");
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) && open != std::string::npos &&
        line.size() > open + 4 && line.compare(line.size() - 2, 2, ">:") == 0 && is_hex(line.substr(0, open)) &&
        open <= 16) {
      DisassembledFunction function;
      function.section = section;
      function.address = std::stoull(line.substr(0, open), nullptr, 16);
      function.symbol = line.substr(open + 2, line.size() - open - 4);
      functions.push_back(std::move(function));
      continue;
    }
    if (functions.empty() || line.empty() || !std::isspace(static_cast<unsigned char>(line[0]))) continue;
    DisassembledFunction& function = functions.back();
    // Relocations: "\t3c: R_X86_64_PLT32\topen-0x4", on the instruction's line (-w) or their own.
    for (std::size_t at = line.find(": R_"); at != std::string::npos; at = line.find(": R_", at + 4)) {
      const std::vector<std::string> words = words_of(line.substr(at + 2));
      if (words.size() < 2) continue;
      const std::string symbol = without_version(split_addend(words[1]).first);
      if (symbol.empty() || symbol[0] == '.') continue;  // a section of this object
      add_unique(function.references, symbol);
      // A call or jump with a relocation calls that symbol.
      const std::size_t tab = line.find('\t');
      const std::size_t from = tab == std::string::npos || tab > at ? at : tab;
      const std::vector<std::string> instruction = words_of(line.substr(from, at - from));
      if (!instruction.empty() && (starts_with(instruction[0], "call") || starts_with(instruction[0], "jmp"))) {
        add_unique(function.calls, symbol);
      }
    }
    // The instruction: "   3:\tsyscall" (address, colon, tab).
    const std::size_t colon = line.find(":\t");
    if (colon == std::string::npos) continue;
    const std::string address = line.substr(0, colon);
    if (!is_hex(words_of(address).empty() ? "" : words_of(address)[0])) continue;
    std::string text = line.substr(colon + 2);
    text = text.substr(0, text.find('\t'));  // what follows is a relocation
    std::vector<std::string> words = words_of(text.substr(0, text.find('#')));
    std::size_t first = 0;
    while (first < words.size() && (kPrefixes.count(words[first]) || starts_with(words[first], "rex"))) ++first;
    if (first >= words.size()) continue;
    const std::string& mnemonic = words[first];
    const std::string operands = first + 1 < words.size() ? words[first + 1] : "";
    ++function.instructions;
    if (mnemonic == "syscall" || mnemonic == "sysenter") {
      function.system_calls.push_back(mnemonic);
    } else if (mnemonic == "int" && operands == "$0x80") {
      function.system_calls.push_back("int $0x80");
    }
    if (kStores.count(mnemonic) && starts_with(operands, "$0x")) {
      // The immediate's bytes, lowest first, up to its highest non-zero byte.
      const std::string hex = operands.substr(3, operands.find(',') - 3);
      if (is_hex(hex) && hex.size() <= 16) {
        for (unsigned long long value = std::stoull(hex, nullptr, 16); value != 0; value >>= 8) {
          const char byte = static_cast<char>(value & 0xff);
          if (byte >= 0x20 && byte <= 0x7e) function.stored_text += byte;
        }
      }
    }
    // The destination: what follows the last comma outside parentheses (or the only operand).
    int depth = 0;
    std::size_t last_comma = std::string::npos;
    for (std::size_t i = 0; i < operands.size(); ++i) {
      if (operands[i] == '(') ++depth;
      if (operands[i] == ')') --depth;
      if (operands[i] == ',' && depth == 0) last_comma = i;
    }
    const std::string destination = last_comma == std::string::npos ? operands : operands.substr(last_comma + 1);
    const bool reads_only = starts_with(mnemonic, "call") || starts_with(mnemonic, "push") ||
                            starts_with(mnemonic, "lea") || starts_with(mnemonic, "j") ||
                            starts_with(mnemonic, "cmp") || starts_with(mnemonic, "test") ||
                            starts_with(mnemonic, "nop") || starts_with(mnemonic, "prefetch");
    if (!reads_only && destination.find('(') != std::string::npos) function.writes_memory = true;
  }
  return functions;
}

std::vector<std::string> dumped_strings(const std::string& objdump_s) {
  std::vector<std::string> strings;
  std::string current;
  const auto flush = [&] {
    if (current.size() >= 2) strings.push_back(current);
    current.clear();
  };
  std::istringstream lines(objdump_s);
  for (std::string line; std::getline(lines, line);) {
    if (starts_with(line, "Contents of section ")) {
      flush();
      continue;
    }
    // " 0010 6e673a3a 61707065 6e64006c 662f6d00  ng::append.lf/m."
    if (line.size() < 2 || line[0] != ' ') continue;
    const std::size_t space = line.find(' ', 1);
    if (space == std::string::npos || !is_hex(line.substr(1, space - 1))) continue;
    const std::string hex_area = line.substr(space + 1, 36);
    std::string hex;
    for (const char c : hex_area) {
      if (c != ' ') hex += c;
    }
    if (!is_hex(hex) || hex.size() % 2 != 0) continue;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
      const char byte = static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
      if (byte >= 0x20 && byte <= 0x7e) {
        current += byte;
      } else {
        flush();
      }
    }
  }
  flush();
  return strings;
}

std::vector<std::string> proc_paths(const std::vector<std::string>& strings) {
  std::vector<std::string> found;
  for (const auto& text : strings) {
    if (has_proc_marker(text)) add_unique(found, text);
  }
  // Pieces: the short path-like strings, put together in the order they are stored (a path made
  // from "/pr", "oc/se", "lf/m" and "em" at run time). Only when no piece says it on its own.
  std::string together;
  for (const auto& text : strings) {
    if (path_like(text) && !has_proc_marker(text)) together += text;
  }
  if (found.empty() && has_proc_marker(together)) {
    std::size_t at = std::string::npos;
    for (const char* marker : kProcMarkers) at = std::min(at, together.find(marker));
    const std::size_t from = at > 12 ? at - 12 : 0;
    found.push_back(together.substr(from, 36));
  }
  return found;
}

// ---- the review ------------------------------------------------------------------------------------------

std::vector<ReviewNote> review_objects(const std::vector<std::string>& objects, const std::string& shown_as,
                                       const ResourceLimits& limits, const std::string& objdump) {
  std::vector<ReviewNote> notes;
  for (const std::string& object : objects) {
    const std::string source = source_name(object);
    const ToolRun headers = run_objdump(objdump, {"-h", "-t", "-r", "-w"}, object, limits);
    if (headers.missing) {
      return {ReviewNote{"compiled code not reviewed", shown_as,
                         fmt::format("objdump (Debian package binutils) is needed to look for system calls, "
                                     "memory-patching calls, /proc paths and static constructors in the compiled "
                                     "code, and it could not run here: {}",
                                     headers.problem)}};
    }
    const ToolRun code = run_objdump(objdump, {"-d", "-r", "-w", "--no-show-raw-insn"}, object, limits);
    ObjectHeaders parsed = parse_headers(headers.output);
    std::vector<std::string> dump_arguments{"-s"};
    for (const Section& section : parsed.sections) {
      if (!text_section(section)) continue;
      dump_arguments.push_back("-j");
      dump_arguments.push_back(section.name);
    }
    ToolRun data;
    data.complete = true;
    if (dump_arguments.size() > 1) data = run_objdump(objdump, dump_arguments, object, limits);
    for (const ToolRun* run : std::initializer_list<const ToolRun*>{&headers, &code, &data}) {
      if (run->complete) continue;
      notes.push_back({"compiled code not fully reviewed", source,
                       fmt::format("{}: what it would have shown was not checked (the notes given for this file "
                                   "may be incomplete)",
                                   run->problem)});
    }
    ObjectReview review(source, std::move(parsed), parse_disassembly(code.output), dumped_strings(data.output));
    for (auto& note : review.notes()) notes.push_back(std::move(note));
  }
  return notes;
}

}  // namespace labgrade
