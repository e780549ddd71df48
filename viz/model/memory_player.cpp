// [SECTION] Tensors in HBM: footprints and formulas
// [SECTION] Running sums
// [SECTION] DRAM bytes per step: the reuse model spread over the events
// [SECTION] On-chip working set
// [SECTION] One step as the animation shows it (MemoryFrame)
#include "viz/model/memory_player.h"

#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "kernels/sim/sim_backend.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

namespace kernels {

namespace {

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }

}  // namespace

// =============================================================================================
// [SECTION] Tensors in HBM
// =============================================================================================
MemoryPlayer::MemoryPlayer(const std::string& variant, const Params& params, uint64_t l2_bytes)
    : variant_(variant), params_(params), l2_bytes_(l2_bytes) {
    if (std::string bad = validate(params); !bad.empty()) throw std::invalid_argument(bad);
    if (!has_variant(params.workload, variant))
        throw std::invalid_argument(unknown_variant_message(params.workload, variant));
    schedule_ = kernels::schedule(variant, params);
    model_ = kernels::model(schedule_, variant, params, l2_bytes);
    build_tensors();
    build_prefix_sums();
    build_dram_sums();
}

const TileEvent* MemoryPlayer::longest_event() const {
    const TileEvent* longest = nullptr;
    size_t longest_chars = 0;
    for (const TileEvent& e : schedule_.events) {
        // The block count is printed after the words: its digits count too.
        const size_t chars = e.what.size() + (e.repeat > 1 ? std::to_string(e.repeat).size() + 10 : 0);
        if (!longest || chars > longest_chars) {
            longest = &e;
            longest_chars = chars;
        }
    }
    return longest;
}

// An event whose bytes lie in a tensor (L2<->SM or register spills), not on chip or compute.
static bool moves_tensor(const TileEvent& e) { return e.kind != EventKind::compute && e.where() != Level::shared; }

void MemoryPlayer::build_tensors() {
    const WorkloadDef& w = workload_def(params_);
    const Decoded decoded = w.decode(params_);  // the workload's own struct, once for every tensor
    for (const TileEvent& e : schedule_.events) {
        if (!moves_tensor(e)) continue;
        int index = tensor_index(e.buffer);
        if (index < 0) {
            HbmTensor t;
            t.name = e.buffer;
            t.input = e.kind == EventKind::load;
            if (e.local) {
                const ScheduleKernel& k = schedule_.kernels.at(static_cast<size_t>(e.kernel));
                t.local = true;
                t.input = false;
                t.kernel = e.kernel;
                t.stack_bytes_per_thread = u(k.registers.stack_bytes);
                t.bytes = u(k.threads_per_block) * t.stack_bytes_per_thread;
                t.formula = "threads per block x stack frame = " + std::to_string(k.threads_per_block) + " x " +
                            std::to_string(k.registers.stack_bytes) + " B per block (" + k.registers.source + ")";
            } else {
                const TensorFootprint f = w.footprint(*decoded, e.buffer);
                t.bytes = f.bytes;
                t.formula = f.formula;
            }
            tensors_.push_back(t);
            index = static_cast<int>(tensors_.size()) - 1;
        }
        HbmTensor& t = tensors_[static_cast<size_t>(index)];
        (e.kind == EventKind::load ? t.total_read : t.total_written) += e.bytes * e.repeat;
        // The first move of a tensor is one plain tile (later events may fold many loop iterations).
        if (t.tile_bytes == 0) t.tile_bytes = e.bytes;
    }
}

int MemoryPlayer::tensor_index(const std::string& buffer) const {
    for (size_t i = 0; i < tensors_.size(); ++i)
        if (tensors_[i].name == buffer) return static_cast<int>(i);
    return -1;
}

// =============================================================================================
// [SECTION] Running sums
// =============================================================================================
void MemoryPlayer::build_prefix_sums() {
    const size_t n = tensors_.size(), steps = step_count();
    read_.assign((steps + 1) * n, 0);
    written_.assign((steps + 1) * n, 0);
    detail_offset_.assign(steps * n, 0);
    flops_.assign(steps + 1, 0);
    shared_.assign(steps + 1, 0);
    std::vector<uint64_t> offset(n, 0);  // the detailed block's bytes so far, per tensor
    for (size_t s = 0; s < steps; ++s) {
        const TileEvent& e = schedule_.events[s];
        std::copy_n(read_.begin() + static_cast<std::ptrdiff_t>(s * n), n, read_.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
        std::copy_n(written_.begin() + static_cast<std::ptrdiff_t>(s * n), n,
                    written_.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
        std::copy(offset.begin(), offset.end(), detail_offset_.begin() + static_cast<std::ptrdiff_t>(s * n));
        flops_[s + 1] = flops_[s] + e.flops * static_cast<double>(e.repeat);
        // Shared memory as model_from_schedule counts it: the event's own bytes when it moves at
        // that level, plus the shared-memory side of any event (a compute step's operand reads).
        shared_[s + 1] = shared_[s] + (e.shared_bytes + (e.kind != EventKind::compute && e.where() == Level::shared ? e.bytes : 0)) * e.repeat;
        if (!moves_tensor(e)) continue;
        const size_t t = static_cast<size_t>(tensor_index(e.buffer));
        (e.kind == EventKind::load ? read_ : written_)[(s + 1) * n + t] += e.bytes * e.repeat;
        offset[t] += e.bytes;
        // Every kernel here stores its result once, at the end of its block: the next event
        // belongs to the next block class, which starts at its own tiles.
        if (e.kind == EventKind::store) std::fill(offset.begin(), offset.end(), 0);
    }
}

const TileEvent* MemoryPlayer::current_event(size_t step) const {
    if (step == 0 || step > step_count()) return nullptr;
    return &schedule_.events[step - 1];
}

uint64_t MemoryPlayer::read_after(size_t step, size_t tensor) const {
    return read_[std::min(step, step_count()) * tensors_.size() + tensor];
}
uint64_t MemoryPlayer::written_after(size_t step, size_t tensor) const {
    return written_[std::min(step, step_count()) * tensors_.size() + tensor];
}
// Over the HBM tensors (local = false) or the register spills (local = true).
uint64_t MemoryPlayer::sum_after(const std::vector<uint64_t>& sums, size_t step, bool local) const {
    const size_t row = std::min(step, step_count()) * tensors_.size();
    uint64_t sum = 0;
    for (size_t t = 0; t < tensors_.size(); ++t)
        if (tensors_[t].local == local) sum += sums[row + t];
    return sum;
}
uint64_t MemoryPlayer::total_read_after(size_t step) const { return sum_after(read_, step, false); }
uint64_t MemoryPlayer::total_written_after(size_t step) const { return sum_after(written_, step, false); }
uint64_t MemoryPlayer::local_read_after(size_t step) const { return sum_after(read_, step, true); }
uint64_t MemoryPlayer::local_written_after(size_t step) const { return sum_after(written_, step, true); }
double MemoryPlayer::flops_after(size_t step) const { return flops_[std::min(step, step_count())]; }

uint64_t MemoryPlayer::dram_read_after(size_t step, size_t tensor) const {
    return dram_read_[std::min(step, step_count()) * tensors_.size() + tensor];
}
uint64_t MemoryPlayer::dram_written_after(size_t step, size_t tensor) const {
    return dram_written_[std::min(step, step_count()) * tensors_.size() + tensor];
}
uint64_t MemoryPlayer::total_dram_read_after(size_t step) const { return sum_after(dram_read_, step, false); }
uint64_t MemoryPlayer::total_dram_written_after(size_t step) const { return sum_after(dram_written_, step, false); }
uint64_t MemoryPlayer::shared_after(size_t step) const { return shared_[std::min(step, step_count())]; }

uint64_t MemoryPlayer::detail_offset_before(size_t step, size_t tensor) const {
    if (step == 0 || step > step_count()) return 0;
    return detail_offset_[(step - 1) * tensors_.size() + tensor];
}

// =============================================================================================
// [SECTION] DRAM bytes per step
// =============================================================================================
// Each kernel's DRAM bytes of a buffer (read and written apart), spread over its events by their
// share of its L2<->SM bytes: the running DRAM sum after an event is floor(L2 so far x DRAM / L2),
// exact at the kernel's last event of the buffer.
void MemoryPlayer::build_dram_sums() {
    const size_t n = tensors_.size(), steps = step_count();
    dram_read_.assign((steps + 1) * n, 0);
    dram_written_.assign((steps + 1) * n, 0);
    event_dram_.assign(steps, 0);
    // L2 bytes so far and DRAM bytes charged so far, per (kernel, tensor, read or write).
    const size_t kernels_n = model_.kernels.size();
    std::vector<uint64_t> l2_so_far(kernels_n * n * 2, 0), dram_so_far(kernels_n * n * 2, 0);
    for (size_t s = 0; s < steps; ++s) {
        std::copy_n(dram_read_.begin() + static_cast<std::ptrdiff_t>(s * n), n,
                    dram_read_.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
        std::copy_n(dram_written_.begin() + static_cast<std::ptrdiff_t>(s * n), n,
                    dram_written_.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
        const TileEvent& e = schedule_.events[s];
        if (!moves_tensor(e) || e.where() == Level::local) continue;  // spills: local memory, not the reuse model
        const auto t = static_cast<size_t>(tensor_index(e.buffer));
        const auto k = static_cast<size_t>(e.kernel);
        const BufferTraffic* b = nullptr;
        for (const BufferTraffic& candidate : model_.kernels.at(k).buffers)
            if (candidate.buffer == e.buffer) b = &candidate;
        if (!b) continue;
        const bool load = e.kind == EventKind::load;
        const uint64_t l2_total = load ? b->bytes_read : b->bytes_written;
        const uint64_t dram_total = load ? b->dram_read : b->dram_written;
        const size_t slot = (k * n + t) * 2 + (load ? 0 : 1);
        l2_so_far[slot] += e.bytes * e.repeat;
        const uint64_t due = l2_so_far[slot] >= l2_total
                                 ? dram_total
                                 : static_cast<uint64_t>(static_cast<long double>(l2_so_far[slot]) *
                                                         static_cast<long double>(dram_total) /
                                                         static_cast<long double>(l2_total));
        event_dram_[s] = due - std::min(due, dram_so_far[slot]);
        dram_so_far[slot] = std::max(due, dram_so_far[slot]);
        (load ? dram_read_ : dram_written_)[(s + 1) * n + t] += event_dram_[s];
    }
}

uint64_t MemoryPlayer::event_l2_bytes(size_t step) const {
    const TileEvent* e = current_event(step);
    return e && moves_tensor(*e) && !e->local ? e->bytes * e->repeat : 0;
}

uint64_t MemoryPlayer::event_dram_bytes(size_t step) const {
    return step == 0 || step > step_count() ? 0 : event_dram_[step - 1];
}

std::string MemoryPlayer::event_dram_rule(size_t step) const {
    const TileEvent* e = current_event(step);
    if (!e || !moves_tensor(*e)) return "";
    for (const BufferTraffic& b : model_.kernels.at(static_cast<size_t>(e->kernel)).buffers)
        if (b.buffer == e->buffer) return b.dram_rule;
    return "";
}

std::vector<size_t> MemoryPlayer::kernel_tensors(int kernel) const {
    std::vector<size_t> out;
    for (const TileEvent& e : schedule_.events) {
        if (e.kernel != kernel || !moves_tensor(e) || e.where() == Level::local) continue;
        const auto t = static_cast<size_t>(tensor_index(e.buffer));
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
    return out;
}

// =============================================================================================
// [SECTION] On-chip working set
// =============================================================================================
OnChip MemoryPlayer::on_chip(int kernel) const {
    if (kernel < 0 || static_cast<size_t>(kernel) >= schedule_.kernels.size()) return OnChip::registers;
    const WorkloadDef& w = workload_def(params_);
    return w.on_chip ? w.on_chip(variant_, params_, schedule_.kernels[static_cast<size_t>(kernel)]) : OnChip::registers;
}

std::vector<SramPart> MemoryPlayer::sram_parts(int kernel) const {
    std::vector<SramPart> parts;
    if (on_chip(kernel) == OnChip::library) return parts;
    if (on_chip(kernel) == OnChip::registers) {
        // What one block holds: each buffer it loads, at its largest tile.
        for (const TileEvent& e : schedule_.events) {
            if (e.kernel != kernel || e.kind != EventKind::load || e.local) continue;
            auto same = [&](const SramPart& part) { return part.name == e.buffer; };
            auto found = std::find_if(parts.begin(), parts.end(), same);
            if (found == parts.end()) parts.push_back({e.buffer, e.bytes, "one block's " + e.buffer + " tile"});
            else found->bytes = std::max(found->bytes, e.bytes);
        }
        return parts;
    }
    const WorkloadDef& w = workload_def(params_);
    return w.sram_parts ? w.sram_parts(variant_, params_, kernel) : parts;
}

uint64_t MemoryPlayer::sram_bytes(int kernel) const {
    uint64_t sum = 0;
    for (const SramPart& part : sram_parts(kernel)) sum += part.bytes;
    return sum;
}

std::string MemoryPlayer::on_chip_note(int kernel) const {
    const RegisterUse r = kernel >= 0 && static_cast<size_t>(kernel) < schedule_.kernels.size()
                              ? schedule_.kernels[static_cast<size_t>(kernel)].registers
                              : RegisterUse{};
    switch (on_chip(kernel)) {
        case OnChip::shared_memory: {
            std::string note = "tiles staged in shared memory; must fit the SM's per-block limit or the kernel cannot launch";
            if (r.registers > 0)  // flash_tc: its accumulators live in registers (the table in the model)
                note += "; each thread keeps its accumulators in " + std::to_string(r.registers) + " registers" +
                        (r.spills() ? " and " + std::to_string(r.stack_bytes) + " B of stack" : "") + " (" + r.source + ")";
            return note;
        }
        case OnChip::library:
            return "cuBLAS chooses its own tiles and shared memory: the model charges each operand once";
        case OnChip::registers: break;
    }
    if (r.spills())
        return "each thread keeps its elements in registers, but at " + std::to_string(r.registers) +
               " registers per thread they do not fit: " + std::to_string(r.stack_bytes) +
               " B per thread go to local memory (" + r.source + ")";
    return "each thread keeps its elements in registers; no shared-memory tiles";
}

PlayerClock MemoryPlayer::clock(const DeviceInfo& device, bool modeled_time) const {
    PlayerClock c;
    const size_t n = step_count();
    c.ends.assign(n + 1, 0);
    c.modeled_bytes = model_.dram_bytes();
    const bool datasheet = device.peak_bw_gbps > 0;
    const RunPrice run = datasheet ? price_run(calibration_for(device), variant_, params_, model_, device) : RunPrice{};
    c.modeled_ms = run.total_ms;
    c.modeled_time = modeled_time && datasheet && device.peak_fp32_tflops > 0;
    if (!c.modeled_time) {
        for (size_t i = 0; i <= n; ++i) c.ends[i] = static_cast<double>(i);
        return c;
    }
    const Schedule& s = schedule_;
    std::vector<double> weight(n, 0), kernel_weight(s.kernels.size(), 0);
    std::vector<size_t> kernel_events(s.kernels.size(), 0);
    for (size_t i = 0; i < n; ++i) {
        const TileEvent& e = s.events[i];
        const auto k = static_cast<size_t>(e.kernel);
        const double peak = (s.kernels[k].tensor_cores ? device.peak_tensor_tflops : device.peak_fp32_tflops) * 1e12;
        const double reps = static_cast<double>(e.repeat);
        weight[i] = std::max(static_cast<double>(e.bytes) * reps / (device.peak_bw_gbps * 1e9), e.flops * reps / peak);
        kernel_weight[k] += weight[i];
        ++kernel_events[k];
    }
    for (size_t i = 0; i < n; ++i) {
        const auto k = static_cast<size_t>(s.events[i].kernel);
        const double kernel_ms = k < run.step_ms.size() ? run.step_ms[k] : 0.0;
        const double share = kernel_weight[k] > 0 ? weight[i] / kernel_weight[k] : 1.0 / static_cast<double>(kernel_events[k]);
        c.ends[i + 1] = c.ends[i] + kernel_ms * share;
    }
    return c;
}

// =============================================================================================
// [SECTION] One step as the animation shows it (MemoryFrame)
// =============================================================================================
namespace {

// An event's words as the header shows them. "ᵀ" is not in every UI font: the transpose is
// written the way a keyboard does.
std::string event_words(const std::string& what) {
    std::string out = what;
    for (size_t at = out.find("\u1D40"); at != std::string::npos; at = out.find("\u1D40"))
        out.replace(at, std::string("\u1D40").size(), "^T");
    return out;
}

const std::string kReadyWords = "ready: nothing has moved yet (press play or step forward)";

// Every buffer name the workload's variants use, in order of first use (the registry's variant
// order, each schedule's order), so that Q, K or W1 keep their colour from one variant to the
// next: two views side by side colour the same tensor alike. Built once per workload, from the
// default parameters; names other parameters bring are appended as they appear.
std::vector<std::string>& workload_buffers(const std::string& workload) {
    static std::map<std::string, std::vector<std::string>> cache;
    auto [it, inserted] = cache.try_emplace(workload);
    if (inserted)
        for (const VariantInfo& v : variants(workload)) {
            try {
                const MemoryPlayer player(v.name, default_params(workload));
                for (const HbmTensor& t : player.tensors())
                    if (std::find(it->second.begin(), it->second.end(), t.name) == it->second.end()) it->second.push_back(t.name);
            } catch (const std::invalid_argument&) {
                // A variant without a schedule at the defaults adds no names.
            }
        }
    return it->second;
}

// Each tensor's colour key: its place among the workload's buffers when they all have a colour of
// their own (`colors`), else its place in this frame (distinct in the view, not across views).
std::vector<int> buffer_series(const MemoryPlayer& player, int colors) {
    static std::mutex mutex;  // views are drawn on one thread; tests may build data elsewhere
    const std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::string>& names = workload_buffers(player.params().workload);
    std::vector<int> out;
    for (const HbmTensor& t : player.tensors()) {
        auto at = std::find(names.begin(), names.end(), t.name);
        if (at == names.end()) at = names.insert(names.end(), t.name);
        out.push_back(static_cast<int>(at - names.begin()));
    }
    if (names.size() > static_cast<size_t>(colors))
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int>(i);
    return out;
}

}  // namespace

MemoryFrame memory_frame(const MemoryPlayer& player, size_t step, float flight, const DeviceInfo& device, int colors,
                         const std::string& refusal) {
    MemoryFrame d;
    d.refusal = refusal;
    // A refused variant does not run: nothing moves, the counters stay at zero.
    step = refusal.empty() ? std::min(step, player.step_count()) : 0;
    if (!refusal.empty()) flight = 1;
    d.title = player.variant();
    d.device = device.name;
    d.simulated = device.simulated;
    d.l2_bytes = static_cast<uint64_t>(std::max<int64_t>(device.l2_bytes, 0));
    d.sm_count = device.sm_count;
    d.smem_limit = static_cast<uint64_t>(std::max(device.smem_per_block_optin, device.smem_per_block));
    d.smem_default = static_cast<uint64_t>(std::max(device.smem_per_block, 0));
    d.step = step;
    d.step_count = player.step_count();
    d.flight = std::clamp(flight, 0.0f, 1.0f);
    const size_t last = player.step_count();
    const std::vector<int> series = buffer_series(player, colors);
    for (size_t t = 0; t < player.tensors().size(); ++t) {
        const HbmTensor& h = player.tensors()[t];
        MemTensor m;
        m.name = h.name;
        m.formula = h.formula;
        m.bytes = h.bytes;
        m.read = player.read_after(step, t);
        m.written = player.written_after(step, t);
        m.total_read = h.total_read;
        m.total_written = h.total_written;
        m.dram_read = player.dram_read_after(step, t);
        m.dram_written = player.dram_written_after(step, t);
        m.total_dram_read = player.dram_read_after(last, t);
        m.total_dram_written = player.dram_written_after(last, t);
        m.tile_bytes = h.tile_bytes;
        m.input = h.input;
        m.series = series[t];
        m.local = h.local;
        if (h.local) {
            // What the GPU reserves: a stack frame for every thread that can be resident.
            const ScheduleKernel& k = player.schedule().kernels.at(static_cast<size_t>(h.kernel));
            const int resident = resident_threads_per_sm(k.threads_per_block, k.registers.registers, device);
            m.bytes = h.stack_bytes_per_thread * static_cast<uint64_t>(resident) *
                      static_cast<uint64_t>(std::max(device.sm_count, 1));
            m.name = "local (spills)";
            m.formula = "stack frame x resident threads per SM x SMs = " + std::to_string(h.stack_bytes_per_thread) +
                        " B x " + std::to_string(resident) + " x " + std::to_string(device.sm_count) +
                        ": the local memory the GPU reserves for this kernel (" + h.formula + ")";
        }
        if (m.bytes) {
            const uint64_t at = player.detail_offset_before(step, t) % m.bytes;
            m.tile_at = static_cast<float>(static_cast<double>(at) / static_cast<double>(m.bytes));
        }
        d.tensors.push_back(m);
    }
    d.read = player.total_read_after(step);
    d.written = player.total_written_after(step);
    d.total_read = player.total_read_after(last);
    d.total_written = player.total_written_after(last);
    d.dram_read = player.total_dram_read_after(step);
    d.dram_written = player.total_dram_written_after(step);
    d.total_dram_read = player.total_dram_read_after(last);
    d.total_dram_written = player.total_dram_written_after(last);
    d.shared = player.shared_after(step);
    d.total_shared = player.shared_after(last);
    d.local_read = player.local_read_after(step);
    d.local_written = player.local_written_after(step);
    d.local_total = player.local_read_after(last) + player.local_written_after(last);
    d.l2_note = player.model().l2_note;
    const TileEvent* current = player.current_event(step);
    const size_t current_kernel = current ? static_cast<size_t>(current->kernel) : 0;
    if (current_kernel < player.schedule().kernels.size()) {
        const RegisterUse& r = player.schedule().kernels[current_kernel].registers;
        d.registers = r.registers;
        d.stack_bytes = r.stack_bytes;
    }
    if (d.local_total > 0) {
        const ModelSpills spills = model_spills(player.model(), device);
        d.spill_note = spills.note;
        if (current_kernel < spills.per_kernel.size()) d.spill_beyond_l1 = spills.per_kernel[current_kernel].beyond_l1;
    }
    // Before the first step the first kernel's working set is shown, empty-handed.
    const TileEvent* e = player.current_event(step);
    const int kernel = e ? e->kernel : 0;
    if (e) {
        d.has_event = true;
        d.kind = e->kind;
        d.tensor = player.tensor_index(e->buffer);
        d.event_bytes = e->bytes;
        d.repeat = e->repeat;
        d.event_l2_bytes = player.event_l2_bytes(step);
        d.event_dram_bytes = player.event_dram_bytes(step);
        d.event_dram_rule = player.event_dram_rule(step);
        d.event_flops = e->flops;
        d.what = event_words(e->what);
    } else {
        d.what = refusal.empty() ? kReadyWords : "refused on this device: " + refusal;
    }
    if (const TileEvent* longest = player.longest_event())
        d.longest_what = event_words(longest->what) +
                         (longest->repeat > 1 ? "  x " + format_count(static_cast<int64_t>(longest->repeat)) + " blocks" : "");
    // Step 0's words (or the refusal) count too: the header keeps its height from step 0 to the last.
    if (kReadyWords.size() > d.longest_what.size()) d.longest_what = kReadyWords;
    if (d.what.size() > d.longest_what.size()) d.longest_what = d.what;
    d.l2_tensors = player.kernel_tensors(kernel);
    const auto& kernels_list = player.schedule().kernels;
    if (!kernels_list.empty()) {
        const ScheduleKernel& k = kernels_list[static_cast<size_t>(kernel)];
        d.kernel_blocks = k.blocks;
        d.kernel_persistent = k.block.persistent;
        d.kernel = "kernel " + std::to_string(kernel + 1) + " of " + std::to_string(kernels_list.size()) + ": " +
                   k.name + ", " + format_count(static_cast<int64_t>(k.blocks)) +
                   (k.threads_per_block && !k.block.persistent ? " blocks"
                    : " " + (k.blocks_are.empty() ? std::string("units (the library picks its blocks)") : k.blocks_are));
    }
    d.on_chip = player.on_chip(kernel);
    d.on_chip_note = player.on_chip_note(kernel);
    for (const SramPart& part : player.sram_parts(kernel)) {
        bool touched = false;
        if (e && e->kind == EventKind::compute) touched = true;
        else if (e && !e->buffer.empty()) touched = part.name.rfind(e->buffer, 0) == 0;
        // Coloured as the tensor it holds a tile of ("Qi" of Q, "Sij" of S): the longest name that prefixes it.
        int part_series = -1;
        size_t matched = 0;
        for (size_t t = 0; t < d.tensors.size(); ++t) {
            const std::string& name = d.tensors[t].name;
            if (!d.tensors[t].local && name.size() > matched && part.name.rfind(name, 0) == 0) {
                part_series = d.tensors[t].series;
                matched = name.size();
            }
        }
        d.sram.push_back({part.name, part.formula, part.bytes, touched, part_series});
        d.sram_needed += part.bytes;
    }
    return d;
}

}  // namespace kernels
