// A workload's variants as an enum with a table of names: values inside the workload, names at its
// edges (command line, settings, files, lessons, the WorkloadDef's functions). A workload declares
// `enum class Variant` and `kVariantNames` in the same order; these lookups serve every workload.
// A value past the table is a variant added while the program runs (an index into a table of them
// beyond the named ones): it has no name here, and a workload refuses what it does not know.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace kernels {

// The enum value of `name`, or nullopt.
template <typename E, size_t N>
std::optional<E> find_named(const char* const (&names)[N], const std::string& name) {
    for (size_t i = 0; i < N; ++i)
        if (name == names[i]) return static_cast<E>(i);
    return std::nullopt;
}

// The name of v, or what a value past the table is.
template <typename E, size_t N>
const char* name_in(const char* const (&names)[N], E v) {
    const int i = static_cast<int>(v);
    return i >= 0 && static_cast<size_t>(i) < N ? names[i] : "(a variant added at run time)";
}

// find_named, or std::invalid_argument naming the workload and its variants.
template <typename E, size_t N>
E named_or_throw(const char* const (&names)[N], const std::string& name, const char* workload) {
    if (const std::optional<E> v = find_named<E>(names, name)) return *v;
    std::string legal;
    for (size_t i = 0; i < N; ++i) legal += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i];
    throw std::invalid_argument("unknown variant '" + name + "' for workload " + workload + " (legal: " + legal + ")");
}

}  // namespace kernels
