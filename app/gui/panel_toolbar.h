// The toolbar (export CSV / JSON / PNG, font scale, theme) and the export folder field.
#pragma once

namespace app {

struct AppState;
struct ResolvedBackend;
class Runner;

void draw_toolbar(AppState& state);  // export buttons and message, font scale, theme
void draw_export_folder(AppState& state);

}  // namespace app
