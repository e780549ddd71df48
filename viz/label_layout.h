// Label layout: the rectangle every label of a view covers and the box it must stay inside.
//
// The drawing code records each label as it draws it, so a later label can look for a spot no
// earlier one covers (the memory view's flying tile, the roofline's point labels) and give up when
// there is none. A test opens a LabelRecording, draws whole frames at classroom sizes and asks
// label_problems() whether any label covers another or leaves its box: what a student at the back
// of the room would see as overlapping or cut text. A shortened label (elided with "...") keeps
// its whole text in `full`; the view shows it in a tooltip.
//
// Plain rectangles of floats (screen pixels): no ImGui here, so the checks run anywhere.
#pragma once

#include <string>
#include <vector>

namespace viz {

// True while a LabelRecording is open (below): LabelLayout::for_recording keeps labels only then.
bool recording_labels();

struct LabelRect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    float width() const { return x1 - x0; }
    float height() const { return y1 - y0; }
    bool empty() const { return !(x1 > x0) || !(y1 > y0); }
};

// Half a pixel either way is anti-aliasing, not overlap: two labels that share an edge (one line
// under the other) do not overlap, and a label flush with its box's edge is inside it.
inline constexpr float kLabelSlack = 0.5f;

// True when the interiors of a and b meet by more than kLabelSlack in both directions.
bool labels_overlap(const LabelRect& a, const LabelRect& b);
// True when `inner` lies within `outer` (kLabelSlack allowed).
bool label_inside(const LabelRect& inner, const LabelRect& outer);

struct PlacedLabel {
    std::string text;     // as drawn
    std::string full;     // the whole text when `text` was shortened to fit (a tooltip shows it), else ""
    LabelRect rect;       // what the glyphs cover: text width x line height
    LabelRect box;        // the part of the view the label belongs in
    std::string where;    // "memory flash: HBM", for messages
    float px = 0;         // the font's pixel height it was drawn at: what the back row has to read
};

// A part of a view (the HBM box, the footer) that labels belong in: parts of one view must not
// overlap, and each lies inside its view.
struct PlacedPart {
    LabelRect rect, view;
    std::string where;
};

class LabelLayout {
public:
    explicit LabelLayout(std::string view = "") : view_(std::move(view)) {}
    // A layout whose labels only a test reads (no label looks for room among them): it keeps
    // nothing unless a LabelRecording is open, so a view pays no strings per frame in normal use.
    static LabelLayout for_recording(std::string view) {
        LabelLayout l(std::move(view));
        l.keep_ = recording_labels();
        return l;
    }

    // Records a drawn label; `where` names its part of the view (prefixed with the view's name).
    // `px`: the font's pixel height (0: the rectangle's height, one line of text).
    void add(const std::string& text, LabelRect rect, LabelRect box, const std::string& where, const std::string& full = "",
             float px = 0);
    // Something that is not a label but that labels must not cover (a roofline point's marker).
    void block(LabelRect r) { blocked_.push_back(r); }
    // A part of the view inside `view` (labels then name it as their box).
    void add_part(const std::string& where, LabelRect rect, LabelRect view);

    // True when r covers no label or blocked rectangle recorded so far.
    bool is_free(const LabelRect& r) const;
    // The first of `candidates` that lies inside `box` and is free; -1 when none is.
    int first_free(const std::vector<LabelRect>& candidates, const LabelRect& box) const;

    const std::vector<PlacedLabel>& labels() const { return labels_; }
    const std::vector<PlacedPart>& parts() const { return parts_; }
    const std::string& view() const { return view_; }

private:
    std::string view_;
    bool keep_ = true;  // false: for_recording() while nothing records
    std::vector<PlacedLabel> labels_;
    std::vector<PlacedPart> parts_;
    std::vector<LabelRect> blocked_;
};

// One line per problem: two labels that overlap, a label outside its box, two parts that overlap
// or a part outside its view. Empty when the layout is legible.
std::vector<std::string> label_problems(const std::vector<PlacedLabel>& labels, const std::vector<PlacedPart>& parts = {});
// One line per label drawn smaller than `min_px` (its text, size and part): too small to read
// from the back of a room. Empty when every label is at least that size.
std::vector<std::string> small_labels(const std::vector<PlacedLabel>& labels, float min_px);

// While a recording is open (one at a time, on the drawing thread), every view that finishes a
// layout adds its labels here through record_labels(); with none open, record_labels() does nothing.
class LabelRecording {
public:
    LabelRecording();
    ~LabelRecording();
    LabelRecording(const LabelRecording&) = delete;
    LabelRecording& operator=(const LabelRecording&) = delete;

    std::vector<PlacedLabel> labels;
    std::vector<PlacedPart> parts;
};
void record_labels(const LabelLayout& layout);


}  // namespace viz
