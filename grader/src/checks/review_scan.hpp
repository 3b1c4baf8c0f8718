#pragma once
// Constructs that honest lab code hardly needs but that patching the test program's own memory
// does (its GOT, its clock, the result channel): raw system calls, changing memory protection,
// /proc/self/mem and /proc/self/maps, walking the loaded libraries, static constructors. Nothing
// here can be stopped inside one process, and each has rare honest uses (a lookup table built at
// load), so they are not scored: the report lists them "for the instructor to review", with the
// file and the function they are in.
//
// They are read from the COMPILED student objects, not from the sources: a macro (`#define S
// sys##call`), a string put together at run time ("/pr" + "oc/self/mem") or assembly spelled
// through a macro hides a construct from any regular expression over the source, but not from the
// object code the compiler produced. With objdump (binutils), per object file:
//   - the host code's instructions: `syscall`, `sysenter`, `int $0x80`, in which function;
//   - the functions and data it refers to but does not define (called_functions() in
//     review_scan.cpp, one table), in which function;
//   - text in its data sections and in the immediates its code stores (where a short char array
//     goes), including pieces of a path that only make "/proc/self/mem" when put together;
//   - its constructors: .init_array/.ctors/.preinit_array entries and .init code, less the one
//     nvcc adds to register the fat binary and the <iostream> initialiser of GCC < 13.
// Device code (the fat binary) is not read: it makes no system calls, and its embedded PTX names
// the source path, which would only cause false alarms.
//
// What remains unseen, stated on purpose: a path computed arithmetically (XOR-ed bytes) leaves
// no text, so open() and pwrite() on it are not listed (a raw syscall that opens it still is, and
// the course's `forbid:` rules refuse open and fopen outright); a syscall instruction hidden in the
// bytes of another instruction and reached by a computed jump; text copied from device memory.
#include <filesystem>
#include <string>
#include <vector>

#include "model/grade_result.hpp"
#include "sandbox/resource_limits.hpp"

namespace labgrade {

// The compiled objects' review notes (see above). One note per construct and object file, its
// `where` naming the source file the object was compiled from ("vector_add.cu.o" ->
// "vector_add.cu") and the functions involved. When objdump cannot run, one note says that the
// compiled code was not reviewed and why, instead of an empty list. `shown_as` names the
// compiled code as a whole in that note. `objdump` is the program to run (tests name a missing
// one).
std::vector<ReviewNote> review_objects(const std::vector<std::string>& objects, const std::string& shown_as,
                                       const ResourceLimits& limits, const std::string& objdump = "objdump");

// ---- the pieces, for tests ------------------------------------------------------------------

// One function of a disassembly (`objdump -d -r -w --no-show-raw-insn`) and what it does that
// the review looks at.
struct DisassembledFunction {
  std::string section;  // ".text", ".text.startup", ...
  unsigned long long address = 0;
  std::string symbol;  // as in the object (mangled)
  std::vector<std::string> system_calls;  // "syscall", "sysenter", "int $0x80", in order
  std::vector<std::string> references;    // symbols named by its relocations (not sections)
  std::vector<std::string> calls;         // those of them it calls or jumps to
  std::string stored_text;                // printable bytes of the immediates its mov instructions store
  int instructions = 0;
  bool writes_memory = false;  // an instruction other than call/push/lea/jmp with a memory destination
};
std::vector<DisassembledFunction> parse_disassembly(const std::string& objdump_d);

// Printable strings of an `objdump -s` dump, in section order (each a run between NULs or
// unprintable bytes, at least 2 characters).
std::vector<std::string> dumped_strings(const std::string& objdump_s);

// The strings that name a /proc file or a piece of one ("/proc", "self/mem", "/maps"...), among
// `strings` and among the short path-like strings put together in order.
std::vector<std::string> proc_paths(const std::vector<std::string>& strings);

}  // namespace labgrade
