// Model sums over a schedule's events, and the spill estimate (kernels/common/schedule.h).
#include "kernels/common/schedule.h"

#include <algorithm>
#include <cstdio>

namespace kernels {

uint64_t KernelModel::bytes_read() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.bytes_read;
    return b;
}

uint64_t KernelModel::bytes_written() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.bytes_written;
    return b;
}

double Model::flops() const {
    double f = 0;
    for (const KernelModel& k : kernels) f += k.flops;
    return f;
}

uint64_t Model::bytes_read() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.bytes_read();
    return b;
}

uint64_t Model::bytes_written() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.bytes_written();
    return b;
}

uint64_t Model::local_bytes() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.local_bytes();
    return b;
}

Model model_from_schedule(const Schedule& s) {
    Model m;
    for (const ScheduleKernel& k : s.kernels) {
        KernelModel km;
        km.name = k.name;
        km.tensor_cores = k.tensor_cores;
        km.blocks = k.blocks;
        km.threads_per_block = k.threads_per_block;
        km.registers = k.registers;
        m.kernels.push_back(std::move(km));
    }
    for (const TileEvent& e : s.events) {
        KernelModel& k = m.kernels.at(static_cast<size_t>(e.kernel));
        k.flops += e.flops * static_cast<double>(e.repeat);
        if (e.kind == EventKind::compute) continue;
        if (e.local) {
            (e.kind == EventKind::load ? k.local_read : k.local_written) += e.bytes * e.repeat;
            continue;
        }
        auto it = std::find_if(k.buffers.begin(), k.buffers.end(),
                               [&](const BufferTraffic& b) { return b.buffer == e.buffer; });
        if (it == k.buffers.end()) it = k.buffers.insert(k.buffers.end(), BufferTraffic{e.buffer, 0, 0});
        (e.kind == EventKind::load ? it->bytes_read : it->bytes_written) += e.bytes * e.repeat;
    }
    return m;
}

// ---------------------------------------------------------------------------------------------
// Spills
// ---------------------------------------------------------------------------------------------
ModelSpills model_spills(const Model& m, const DeviceInfo& device) {
    ModelSpills s;
    for (const KernelModel& k : m.kernels) {
        SpillEstimate e = spill_estimate(k, device);
        s.local_bytes += e.local_bytes;
        s.beyond_l1_bytes += e.beyond_l1_bytes;
        if (e.local_bytes > 0) {
            if (!s.note.empty()) s.note += "; ";
            s.note += k.name + " spills (" + std::to_string(k.registers.registers) + " registers, " +
                      std::to_string(k.registers.spill_store_bytes) + " B stored and " +
                      std::to_string(k.registers.spill_load_bytes) + " B reloaded per thread, " +
                      k.registers.source + "): " + e.note;
        }
        s.per_kernel.push_back(std::move(e));
    }
    return s;
}

int resident_threads_per_sm(int threads_per_block, int registers, const DeviceInfo& device) {
    if (threads_per_block <= 0) return 0;
    const SmLimits sm = sm_limits(device.cc_major, device.cc_minor);
    int blocks = std::min(sm.max_threads / threads_per_block, sm.max_blocks);
    if (registers > 0) {
        // Registers are handed out per warp in units of 256, i.e. 8 per thread.
        const int per_thread = (registers + 7) / 8 * 8;
        const int warps = (threads_per_block + 31) / 32;
        blocks = std::min(blocks, sm.registers / (per_thread * 32 * warps));
    }
    return std::max(blocks, 1) * threads_per_block;
}

SpillEstimate spill_estimate(const KernelModel& k, const DeviceInfo& device) {
    SpillEstimate e;
    e.local_bytes = k.local_bytes();
    if (e.local_bytes == 0 || k.threads_per_block <= 0) return e;
    e.resident_threads_per_sm = resident_threads_per_sm(k.threads_per_block, k.registers.registers, device);
    e.footprint_per_sm = static_cast<uint64_t>(k.registers.stack_bytes) * static_cast<uint64_t>(e.resident_threads_per_sm);
    e.l1_bytes = static_cast<uint64_t>(sm_limits(device.cc_major, device.cc_minor).l1_shared_bytes);
    if (e.footprint_per_sm > e.l1_bytes)
        e.beyond_l1 = 1.0 - static_cast<double>(e.l1_bytes) / static_cast<double>(e.footprint_per_sm);
    e.beyond_l1_bytes = static_cast<uint64_t>(e.beyond_l1 * static_cast<double>(e.local_bytes));
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%d resident threads per SM x %d B of stack = %.0f KiB of local memory per SM against %.0f KiB of "
                  "L1: about %.0f%% of the %.1f MB of spill traffic leaves the SM (to L2, and to HBM when L2 is full)",
                  e.resident_threads_per_sm, k.registers.stack_bytes, static_cast<double>(e.footprint_per_sm) / 1024.0,
                  static_cast<double>(e.l1_bytes) / 1024.0, 100.0 * e.beyond_l1, static_cast<double>(e.local_bytes) / 1e6);
    e.note = buf;
    return e;
}

}  // namespace kernels
