// [SECTION] Tensors in HBM: footprints and formulas
// [SECTION] Running sums
// [SECTION] On-chip working set
#include "kernels/memory_player.h"

#include "kernels/common/registry.h"

#include <algorithm>
#include <stdexcept>

namespace kernels {

namespace {

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }

}  // namespace

// =============================================================================================
// [SECTION] Tensors in HBM
// =============================================================================================
MemoryPlayer::MemoryPlayer(const std::string& variant, const Params& params) : variant_(variant), params_(params) {
    if (std::string bad = validate(params); !bad.empty()) throw std::invalid_argument(bad);
    if (!has_variant(params.workload, variant))
        throw std::invalid_argument(unknown_variant_message(params.workload, variant));
    schedule_ = kernels::schedule(variant, params);
    model_ = model_from_schedule(schedule_);
    build_tensors();
    build_prefix_sums();
}

void MemoryPlayer::build_tensors() {
    for (const TileEvent& e : schedule_.events) {
        if (e.kind == EventKind::compute) continue;
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
                const TensorFootprint f = workload_def(params_).footprint(params_, e.buffer);
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
    std::vector<uint64_t> offset(n, 0);  // the detailed block's bytes so far, per tensor
    for (size_t s = 0; s < steps; ++s) {
        const TileEvent& e = schedule_.events[s];
        std::copy_n(read_.begin() + static_cast<std::ptrdiff_t>(s * n), n, read_.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
        std::copy_n(written_.begin() + static_cast<std::ptrdiff_t>(s * n), n,
                    written_.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
        std::copy(offset.begin(), offset.end(), detail_offset_.begin() + static_cast<std::ptrdiff_t>(s * n));
        flops_[s + 1] = flops_[s] + e.flops * static_cast<double>(e.repeat);
        if (e.kind == EventKind::compute) continue;
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

uint64_t MemoryPlayer::detail_offset_before(size_t step, size_t tensor) const {
    if (step == 0 || step > step_count()) return 0;
    return detail_offset_[(step - 1) * tensors_.size() + tensor];
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

}  // namespace kernels
