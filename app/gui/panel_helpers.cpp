#include "app/gui/panel_helpers.h"

#include "kernels/core/registry.h"

#include <cstdio>

namespace app {

int variant_series(std::string w, const std::string& variant) {
    const auto& all = kernels::variants(w);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == variant) return static_cast<int>(i);
    return 0;
}

std::string ratio_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", value);
    return text;
}

}  // namespace app
