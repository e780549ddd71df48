// The GUI's shared state (app/core/panels_state.h) without a GUI: the validation the panels show
// follows the parameters, computed once per change.
#include "app/core/panels_state.h"

#include "kernels/workload.h"

#include <catch2/catch.hpp>

TEST_CASE("panels_state: params_error follows the parameters", "[panels_state]") {
    app::AppState state;
    CHECK(app::params_error(state) == kernels::validate(state.settings.params));
    CHECK(app::params_error(state).empty());

    state.settings.params.set("rows", 0);
    const std::string& bad = app::params_error(state);
    CHECK_FALSE(bad.empty());
    CHECK(bad == kernels::validate(state.settings.params));
    // Asked again without a change: the same answer (the kept one, not a new string).
    CHECK(&app::params_error(state) == &bad);

    state.settings.params = app::Settings{}.params;
    CHECK(app::params_error(state).empty());
}
