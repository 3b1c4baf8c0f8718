#pragma once
// The runner's side of the protocol (cudalabs/remote/protocol.hpp): a table of the lab's
// functions, each entry decoding its arguments from a request and calling the implementation
// linked into this runner (the submission's library, or the solution). Built once per runner by
// common/src/remote/lab_function_table.cpp from the lab's lab_calls.def.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include <cuda_runtime.h>

#include "cudalabs/remote/protocol.hpp"

namespace cudalabs::remote {

// What an argument refers to in this process; throws std::invalid_argument for a request that
// names memory the judge never shared or lies outside its allocation.
class RunnerMemory {
 public:
  virtual ~RunnerMemory() = default;
  virtual void* resolve(const Argument& argument) = 0;
  virtual cudaStream_t stream() = 0;
  virtual const cudaStream_t* streams() = 0;
};

using Invoke = std::uint64_t (*)(const Request&, RunnerMemory&);

struct ServedFunction {
  const char* name;
  Invoke invoke;
};

// The table the per-lab translation unit defines.
extern const ServedFunction kServedFunctions[];
extern const std::size_t kServedFunctionCount;

namespace detail {

template <class T>
T decode(const Argument& argument, RunnerMemory& memory) {
  if constexpr (std::is_same_v<T, cudaStream_t>) {
    if (argument.kind != ArgumentKind::stream) throw std::invalid_argument("expected a stream");
    return memory.stream();
  } else if constexpr (std::is_same_v<T, const cudaStream_t*> || std::is_same_v<T, cudaStream_t*>) {
    if (argument.kind == ArgumentKind::null) return nullptr;
    if (argument.kind != ArgumentKind::stream_array) throw std::invalid_argument("expected an array of streams");
    return const_cast<T>(memory.streams());
  } else if constexpr (std::is_pointer_v<T>) {
    if (argument.kind == ArgumentKind::null) return nullptr;
    return static_cast<T>(memory.resolve(argument));
  } else {
    if (argument.kind != ArgumentKind::value) throw std::invalid_argument("expected a value");
    T value{};
    std::memcpy(&value, &argument.value, sizeof value);
    return value;
  }
}

template <auto Function, class R, class... Args, std::size_t... I>
std::uint64_t invoke_with(const Request& request, RunnerMemory& memory, std::index_sequence<I...>) {
  if (request.argument_count != sizeof...(Args)) throw std::invalid_argument("wrong number of arguments");
  std::tuple<Args...> arguments{decode<Args>(request.arguments[I], memory)...};
  const R result = std::apply(Function, arguments);
  std::uint64_t raw = 0;
  std::memcpy(&raw, &result, sizeof result);
  return raw;
}

template <auto Function, class R, class... Args>
std::uint64_t invoke(R (*)(Args...), const Request& request, RunnerMemory& memory) {
  return invoke_with<Function, R, Args...>(request, memory, std::index_sequence_for<Args...>{});
}

}  // namespace detail

// The table entry of one function of the lab's API.
template <auto Function>
std::uint64_t serve(const Request& request, RunnerMemory& memory) {
  return detail::invoke<Function>(Function, request, memory);
}

}  // namespace cudalabs::remote
