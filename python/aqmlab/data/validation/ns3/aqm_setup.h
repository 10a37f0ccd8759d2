// The queue disc under test in betared_dumbbell.cc: which ns-3.37 queue disc each --aqm name
// selects, and every attribute it is given. The values are those aqmlab resolves for
// experiments/betared/scenario1.toml and scenario2.toml (`aqmlab show`), so the program run on
// its own compares like for like; `aqmlab validate ns3` passes the same mapping explicitly with
// --qdisc=Name=Value,... (python/aqmlab/validate_ns3_aqm.py), which overrides these values.
// The mapping, and what cannot be mapped, is documented in docs/validation-ns3.md.

#ifndef AQMLAB_BENCH_NS3_AQM_SETUP_H
#define AQMLAB_BENCH_NS3_AQM_SETUP_H

#include "ns3/core-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace aqm_setup
{

using Attributes = std::vector<std::pair<std::string, std::string>>;

// "max" stands for Time::Max(), ns-3's "never" for a threshold that is off.
const std::string kTimeMax = "max";

struct QueueDiscSpec
{
    std::string type;      // ns-3 TypeId name
    Attributes attributes; // every attribute set, in the order applied
};

// The queue disc for an --aqm name with aqmlab's values; empty type for an unknown name.
// `buffer` is the buffer in packets ("1000p"), `rate` and `delay` the bottleneck link's.
inline QueueDiscSpec
DefaultSpec(const std::string& aqm,
            const std::string& buffer,
            const std::string& rate,
            const std::string& delay)
{
    if (aqm == "droptail")
    {
        // aqmlab queue.limit_pkts = 1000
        return {"ns3::FifoQueueDisc", {{"MaxSize", buffer}}};
    }
    if (aqm == "red")
    {
        // [queue.red] q_min_pkts 100, q_max_pkts 400, p_max 0.1 (LInterm = 1/p_max), w 0.002,
        // gentle false, mean_pkt_bytes 1000, packet mode; forced drops above q_max. aqmlab's
        // spacing "none" has no ns-3 counterpart: Wait = false spaces drops uniformly.
        return {"ns3::RedQueueDisc",
                {{"MaxSize", buffer},
                 {"ARED", "false"},
                 {"AdaptMaxP", "false"},
                 {"FengAdaptive", "false"},
                 {"NLRED", "false"},
                 {"Ns1Compat", "false"},
                 {"MinTh", "100"},
                 {"MaxTh", "400"},
                 {"QW", "0.002"},
                 {"LInterm", "10"},
                 {"MeanPktSize", "1000"},
                 {"IdlePktSize", "0"},
                 {"Gentle", "false"},
                 {"Wait", "false"},
                 {"UseHardDrop", "true"},
                 {"UseEcn", "false"},
                 {"LinkBandwidth", rate},
                 {"LinkDelay", delay}}};
    }
    if (aqm == "ared")
    {
        // [queue.ared] defaults: automatic thresholds and weight from target_delay_ms 5 and
        // the link (ARED = true sets MinTh = MaxTh = QW = 0, i.e. automatic), interval 0.5 s,
        // alpha 0.01, beta 0.9, top 0.5, bottom 0 (automatic, with rtt_ms 100), p_max_initial
        // 0.02 (LInterm 50), gentle, spacing "wait", mean_pkt_bytes 1000.
        return {"ns3::RedQueueDisc",
                {{"MaxSize", buffer},
                 {"ARED", "true"},
                 {"AdaptMaxP", "true"},
                 {"FengAdaptive", "false"},
                 {"NLRED", "false"},
                 {"Ns1Compat", "false"},
                 {"MinTh", "0"},
                 {"MaxTh", "0"},
                 {"QW", "0"},
                 {"TargetDelay", "5ms"},
                 {"Interval", "500ms"},
                 {"Alpha", "0.01"},
                 {"Beta", "0.9"},
                 {"Top", "0.5"},
                 {"Bottom", "0"},
                 {"Rtt", "100ms"},
                 {"LInterm", "50"},
                 {"MeanPktSize", "1000"},
                 {"IdlePktSize", "0"},
                 {"Gentle", "true"},
                 {"Wait", "true"},
                 {"UseHardDrop", "true"},
                 {"UseEcn", "false"},
                 {"LinkBandwidth", rate},
                 {"LinkDelay", delay}}};
    }
    if (aqm == "pie")
    {
        // [queue.pie] defaults: target_ms 15, t_update_ms 15 (first update at t = 0), alpha
        // 0.125, beta 1.25, max_burst_ms 150, dq_threshold_bytes 16384, the timestamp delay
        // estimate, cap drop adjustment on, no derandomisation, ecn_max_p 0.1, ECN off.
        return {"ns3::PieQueueDisc",
                {{"MaxSize", buffer},
                 {"MeanPktSize", "1000"},
                 {"QueueDelayReference", "15ms"},
                 {"Tupdate", "15ms"},
                 {"Supdate", "0s"},
                 {"A", "0.125"},
                 {"B", "1.25"},
                 {"MaxBurstAllowance", "150ms"},
                 {"DequeueThreshold", "16384"},
                 {"UseDequeueRateEstimator", "false"},
                 {"UseCapDropAdjustment", "true"},
                 {"UseDerandomization", "false"},
                 {"UseEcn", "false"},
                 {"MarkEcnThreshold", "0.1"},
                 {"ActiveThreshold", kTimeMax},
                 {"CeThreshold", kTimeMax},
                 {"UseL4s", "false"}}};
    }
    if (aqm == "codel")
    {
        // [queue.codel] defaults: target_ms 5, interval_ms 100, mtu_bytes 1500; ECN off.
        return {"ns3::CoDelQueueDisc",
                {{"MaxSize", buffer},
                 {"Target", "5ms"},
                 {"Interval", "100ms"},
                 {"MinBytes", "1500"},
                 {"UseEcn", "false"},
                 {"UseL4s", "false"},
                 {"CeThreshold", kTimeMax}}};
    }
    return {};
}

// Replace or add the attributes given as "Name=Value,Name=Value"; false (with a message on
// stderr) when an item has no '='.
inline bool
ApplyOverrides(QueueDiscSpec& spec, const std::string& text)
{
    size_t pos = 0;
    while (pos < text.size())
    {
        size_t comma = text.find(',', pos);
        std::string item = text.substr(pos, comma == std::string::npos ? comma : comma - pos);
        pos = comma == std::string::npos ? text.size() : comma + 1;
        if (item.empty())
        {
            continue;
        }
        size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            std::cerr << "--qdisc: expected Name=Value, got '" << item << "'\n";
            return false;
        }
        std::string name = item.substr(0, eq);
        std::string value = item.substr(eq + 1);
        bool replaced = false;
        for (auto& kv : spec.attributes)
        {
            if (kv.first == name)
            {
                kv.second = value;
                replaced = true;
            }
        }
        if (!replaced)
        {
            spec.attributes.emplace_back(name, value);
        }
    }
    return true;
}

// Set every attribute on the installed (not yet initialised) queue disc; false (with a
// message on stderr) for an attribute the queue disc does not have or a value it refuses.
inline bool
Apply(ns3::Ptr<ns3::QueueDisc> qd, const QueueDiscSpec& spec)
{
    for (const auto& kv : spec.attributes)
    {
        bool ok = kv.second == kTimeMax
                      ? qd->SetAttributeFailSafe(kv.first, ns3::TimeValue(ns3::Time::Max()))
                      : qd->SetAttributeFailSafe(kv.first, ns3::StringValue(kv.second));
        if (!ok)
        {
            std::cerr << spec.type << ": cannot set " << kv.first << "=" << kv.second << "\n";
            return false;
        }
    }
    return true;
}

// The attributes as the queue disc holds them now, serialised by ns-3, for the JSON output;
// an attribute ns-3 can set but not read (RedQueueDisc's Alpha and Beta) shows the value given.
inline Attributes
ReadBack(ns3::Ptr<ns3::QueueDisc> qd, const QueueDiscSpec& spec)
{
    Attributes out;
    for (const auto& kv : spec.attributes)
    {
        ns3::StringValue value;
        bool ok = qd->GetAttributeFailSafe(kv.first, value);
        out.emplace_back(kv.first, ok ? value.Get() : kv.second + " (as set; not readable)");
    }
    return out;
}

} // namespace aqm_setup

#endif
