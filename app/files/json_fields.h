// Reading JSON that a person may have edited or a copy may have cut short, field by field: every
// failure names the JSON path of the field and what was expected ("$.measurements[3].time.median_ms:
// expected a number"), so a bad file is refused with one line that says where to look. The readers
// of exports (results_import.cpp) and of recordings (recording.cpp) share these.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace app::json_fields {

using json = nlohmann::json;

// A malformed field: what() is "PATH: what is wrong".
struct FieldError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& path, const std::string& what) { throw FieldError(path + ": " + what); }

// obj[key], which must be there; obj must be an object.
inline const json& member(const json& obj, const char* key, const std::string& path) {
    if (!obj.is_object()) fail(path, "expected an object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(path + "." + key, "missing");
    return *it;
}

// obj[key] when it is there and not null, else nullptr (also when obj is not an object).
inline const json* optional_member(const json& obj, const char* key) {
    if (!obj.is_object()) return nullptr;
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

}  // namespace app::json_fields
