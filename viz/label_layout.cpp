#include "viz/label_layout.h"

#include <algorithm>
#include <cstdio>

namespace viz {

bool labels_overlap(const LabelRect& a, const LabelRect& b) {
    if (a.empty() || b.empty()) return false;
    const float w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
    const float h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
    return w > kLabelSlack && h > kLabelSlack;
}

bool label_inside(const LabelRect& inner, const LabelRect& outer) {
    return inner.x0 >= outer.x0 - kLabelSlack && inner.y0 >= outer.y0 - kLabelSlack && inner.x1 <= outer.x1 + kLabelSlack &&
           inner.y1 <= outer.y1 + kLabelSlack;
}

void LabelLayout::add(const std::string& text, LabelRect rect, LabelRect box, const std::string& where,
                      const std::string& full, float px) {
    if (!keep_ || text.empty() || rect.empty()) return;
    labels_.push_back({text, full, rect, box, view_.empty() ? where : view_ + ": " + where, px > 0 ? px : rect.height()});
}

void LabelLayout::add_part(const std::string& where, LabelRect rect, LabelRect view) {
    if (!keep_) return;
    parts_.push_back({rect, view, view_.empty() ? where : view_ + ": " + where});
}

bool LabelLayout::is_free(const LabelRect& r) const {
    for (const PlacedLabel& l : labels_)
        if (labels_overlap(r, l.rect)) return false;
    for (const LabelRect& b : blocked_)
        if (labels_overlap(r, b)) return false;
    return true;
}

int LabelLayout::first_free(const std::vector<LabelRect>& candidates, const LabelRect& box) const {
    for (size_t i = 0; i < candidates.size(); ++i)
        if (label_inside(candidates[i], box) && is_free(candidates[i])) return static_cast<int>(i);
    return -1;
}

namespace {

std::string rect_text(const LabelRect& r) {
    char text[96];
    std::snprintf(text, sizeof text, "[%.0f,%.0f]-[%.0f,%.0f]", static_cast<double>(r.x0), static_cast<double>(r.y0),
                  static_cast<double>(r.x1), static_cast<double>(r.y1));
    return text;
}

}  // namespace

std::vector<std::string> label_problems(const std::vector<PlacedLabel>& labels, const std::vector<PlacedPart>& parts) {
    std::vector<std::string> out;
    for (size_t i = 0; i < parts.size(); ++i) {
        const PlacedPart& a = parts[i];
        if (!label_inside(a.rect, a.view)) out.push_back(a.where + " " + rect_text(a.rect) + " leaves its view " + rect_text(a.view));
        for (size_t j = i + 1; j < parts.size(); ++j)
            if (labels_overlap(a.rect, parts[j].rect)) out.push_back(parts[j].where + " overlaps " + a.where);
    }
    for (size_t i = 0; i < labels.size(); ++i) {
        const PlacedLabel& a = labels[i];
        if (!label_inside(a.rect, a.box))
            out.push_back("'" + a.text + "' " + rect_text(a.rect) + " leaves its box " + rect_text(a.box) + " (" + a.where + ")");
        for (size_t j = i + 1; j < labels.size(); ++j)
            if (labels_overlap(a.rect, labels[j].rect))
                out.push_back("'" + labels[j].text + "' (" + labels[j].where + ") covers '" + a.text + "' (" + a.where + ")");
    }
    return out;
}

std::vector<std::string> small_labels(const std::vector<PlacedLabel>& labels, float min_px) {
    std::vector<std::string> out;
    for (const PlacedLabel& l : labels)
        if (l.px < min_px) {
            char size[48];
            std::snprintf(size, sizeof size, "%.1f px (under %.0f px)", static_cast<double>(l.px), static_cast<double>(min_px));
            out.push_back("'" + l.text + "' " + size + " (" + l.where + ")");
        }
    return out;
}

namespace {
LabelRecording* g_recording = nullptr;
}

LabelRecording::LabelRecording() { g_recording = this; }
LabelRecording::~LabelRecording() {
    if (g_recording == this) g_recording = nullptr;
}

bool recording_labels() { return g_recording != nullptr; }

void record_labels(const LabelLayout& layout) {
    if (!g_recording) return;
    g_recording->labels.insert(g_recording->labels.end(), layout.labels().begin(), layout.labels().end());
    g_recording->parts.insert(g_recording->parts.end(), layout.parts().begin(), layout.parts().end());
}

}  // namespace viz
