// Model sums over a schedule's events, and the spill estimate (kernels/core/schedule.h).
#include "kernels/core/schedule.h"

#include <algorithm>
#include <cstdio>
#include <map>

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

uint64_t KernelModel::dram_read() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.dram_read;
    return b;
}

uint64_t KernelModel::dram_written() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.dram_written;
    return b;
}

const char* to_string(Level level) {
    switch (level) {
        case Level::l2: return "L2<->SM";
        case Level::shared: return "shared memory";
        case Level::local: return "local (spills)";
    }
    return "?";
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

uint64_t Model::dram_read() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.dram_read();
    return b;
}

uint64_t Model::dram_written() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.dram_written();
    return b;
}

uint64_t Model::shared_bytes() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.shared_bytes;
    return b;
}

double Model::sfu_ops() const {
    double f = 0;
    for (const KernelModel& k : kernels) f += k.sfu_ops;
    return f;
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
        static_cast<ScheduleKernel&>(km) = k;  // the schedule's kernel, whole; the sums start at 0
        m.kernels.push_back(std::move(km));
    }
    for (const TileEvent& e : s.events) {
        KernelModel& k = m.kernels.at(static_cast<size_t>(e.kernel));
        k.flops += e.flops * static_cast<double>(e.repeat);
        k.sfu_ops += e.sfu_ops * static_cast<double>(e.repeat);
        k.shared_bytes += e.shared_bytes * e.repeat;
        k.instructions += e.instructions * static_cast<double>(e.repeat);
        if (e.kind == EventKind::compute) continue;
        if (e.where() == Level::local) {
            (e.kind == EventKind::load ? k.local_read : k.local_written) += e.bytes * e.repeat;
            continue;
        }
        if (e.where() == Level::shared) {
            k.shared_bytes += e.bytes * e.repeat;
            continue;
        }
        auto it = std::find_if(k.buffers.begin(), k.buffers.end(),
                               [&](const BufferTraffic& b) { return b.buffer == e.buffer; });
        if (it == k.buffers.end()) it = k.buffers.insert(k.buffers.end(), BufferTraffic{e.buffer, 0, 0});
        (e.kind == EventKind::load ? it->bytes_read : it->bytes_written) += e.bytes * e.repeat;
    }
    for (KernelModel& k : m.kernels)
        for (BufferTraffic& b : k.buffers) {
            b.dram_read = b.bytes_read;
            b.dram_written = b.bytes_written;
        }
    return m;
}

// ---------------------------------------------------------------------------------------------
// The L2 reuse model (rules in schedule.h)
// ---------------------------------------------------------------------------------------------
namespace {

std::string mib_text(double bytes) {
    char text[48];
    if (bytes >= 1024.0 * 1024.0) std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
    else std::snprintf(text, sizeof text, "%.0f KiB", bytes / 1024.0);
    return text;
}

const BufferTraffic* find_buffer(const KernelModel& k, const std::string& name) {
    for (const BufferTraffic& b : k.buffers)
        if (b.buffer == name) return &b;
    return nullptr;
}

}  // namespace

std::string l2_reuse_rules_text(uint64_t l2_bytes) {
    return "DRAM bytes from the L2 reuse model (" + mib_text(double(l2_bytes)) +
           " L2): (1) in one kernel a buffer comes from DRAM at most once, since the blocks that re-read a tile run "
           "at the same time; (2) an intermediate the previous kernel wrote is read from L2 when it fits in half "
           "of it (" + mib_text(double(l2_bytes / 2)) + "), and its last (0.9 L2 - size) bytes when it is larger; (3) a buffer rewritten while it fits there reaches "
           "DRAM once, every other write once per kernel, dirty lines included.";
}

void apply_l2_reuse(Model& m, uint64_t l2_bytes, const std::function<uint64_t(const std::string&)>& footprint) {
    const uint64_t half_l2 = l2_bytes / 2;
    const uint64_t kept_l2 = l2_bytes / 10 * 9;  // what L2 keeps of a stream (rule 2)
    // Each buffer's last writer (rule 3), found once: a run of K kernels asks this K times.
    std::map<std::string, size_t> last_writer;
    for (size_t ki = 0; ki < m.kernels.size(); ++ki)
        for (const BufferTraffic& b : m.kernels[ki].buffers)
            if (b.bytes_written > 0) last_writer[b.buffer] = ki;
    for (size_t ki = 0; ki < m.kernels.size(); ++ki) {
        KernelModel& k = m.kernels[ki];
        for (BufferTraffic& b : k.buffers) {
            const uint64_t fp = footprint ? footprint(b.buffer) : 0;
            b.dram_read = b.bytes_read;
            b.dram_written = b.bytes_written;
            b.dram_rule.clear();
            const bool fits = fp > 0 && fp <= half_l2;
            if (b.bytes_read > 0) {
                const BufferTraffic* prev = ki > 0 ? find_buffer(m.kernels[ki - 1], b.buffer) : nullptr;
                if (prev && prev->bytes_written > 0 && fits) {
                    b.dram_read = 0;
                    b.dram_rule = b.buffer + " read from L2: the previous kernel wrote it and its " + mib_text(double(fp)) +
                                  " fit in half the L2";
                } else if (prev && prev->bytes_written > 0 && fp > half_l2 && fp < kept_l2) {
                    // Larger than half the L2 but not than what it keeps: the writer's last
                    // 0.9 L2 - fp bytes are still there when the reader starts (the counters: naive's S
                    // and P of 32 MiB each at 16 heads, N = 1024, came 14 MiB each from L2 on the H100,
                    // 18 on the H200; the unfused chain's 32 MiB intermediates 4-6 MiB each, which this
                    // rule overstates).
                    const uint64_t still_in_l2 = kept_l2 - fp;
                    b.dram_read = std::min(b.bytes_read, fp) - std::min(std::min(b.bytes_read, fp), still_in_l2);
                    b.dram_rule = b.buffer + " read partly from L2: the previous kernel wrote its " + mib_text(double(fp)) +
                                  ", of which the last " + mib_text(double(still_in_l2)) + " are still in the " +
                                  mib_text(double(l2_bytes)) + " L2 (it keeps about 90 % of a stream)";
                } else if (fp > 0 && b.bytes_read > fp) {
                    b.dram_read = fp;
                    b.dram_rule = b.buffer + " read " + mib_text(double(b.bytes_read)) + " from L2, " +
                                  mib_text(double(fp)) + " from DRAM (concurrent blocks share it)";
                }
            }
            if (b.bytes_written > 0) {
                const bool rewritten_later = fits && last_writer[b.buffer] > ki;
                if (rewritten_later) {
                    b.dram_written = 0;
                    if (!b.dram_rule.empty()) b.dram_rule += "; ";
                    b.dram_rule += b.buffer + " rewritten in L2 by a later kernel: it reaches DRAM once, at the last write";
                } else if (fp > 0 && b.bytes_written > fp) {
                    b.dram_written = fp;
                }
            }
        }
    }
    m.l2_note = l2_reuse_rules_text(l2_bytes);
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

int resident_blocks_per_sm(int threads_per_block, int registers, uint64_t shared_bytes, const DeviceInfo& device) {
    if (threads_per_block <= 0) return 0;
    int blocks = resident_threads_per_sm(threads_per_block, registers, device) / threads_per_block;
    if (shared_bytes > 0) {
        const SmLimits sm = sm_limits(device.cc_major, device.cc_minor);
        const uint64_t per_block = shared_bytes + (device.cc_major >= 8 ? kSharedReservedPerBlock : 0);
        blocks = std::min<int>(blocks, static_cast<int>(static_cast<uint64_t>(sm.shared_bytes) / per_block));
    }
    return std::max(blocks, 1);
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
