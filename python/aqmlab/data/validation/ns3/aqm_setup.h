// The queue disc under test in betared_dumbbell.cc: which ns-3.37 queue disc each --aqm name
// selects, and every attribute it is given. The values are those aqmlab resolves for
// experiments/betared/scenario1.toml and scenario2.toml (`aqmlab show`), so the program run on
// its own compares like for like; `aqmlab validate ns3` passes the same mapping explicitly with
// --qdisc=Name=Value,... (python/aqmlab/validate/ns3/queue_discs.py), which overrides these
// values. The mapping, and what cannot be mapped, is documented in docs/validation-ns3.md.
//
// Two kinds of name are not attributes of the queue disc itself:
// - "ns3::Type::Attribute" sets that type's default (Config::SetDefault). The flow-queueing
//   queue discs create one child queue disc per flow queue while the simulation runs and pass
//   only some of their attributes on; a default reaches the others (CoDel's MinBytes under
//   FqCoDel, PIE's MarkEcnThreshold under FqPie).
// - "Quantum" is the DRR quantum of FqCoDel, FqPie and FqCobalt, set with SetQuantum(): ns-3.37
//   has no attribute for it (0 there means the device's MTU).

#ifndef AQMLAB_BENCH_NS3_AQM_SETUP_H
#define AQMLAB_BENCH_NS3_AQM_SETUP_H

#include "ns3/core-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <cstdlib>

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
#ifdef AQMLAB_BRIDGE
    if (aqm == "aqmlab")
    {
        // Any aqmlab AQM inside ns-3 through the bridge (ns3/aqmlab-queue-disc.h, compiled in
        // with -DAQMLAB_BRIDGE): the AQM and its parameters come with --qdisc=Aqm=NAME,
        // Params=key=value;key=value,UseEcn=...,Seed=...
        return {"ns3::AqmlabQueueDisc", {{"MaxSize", buffer}, {"LinkBandwidth", rate}}};
    }
#endif
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
    // The flow-queueing discs' own attributes, as [queue.fq_*] resolves them: 1024 flow
    // queues, drop batches of 64, hash perturbation 0, quantum 1500 B, no set-associative hash
    // (8 ways), CE threshold off.
    const Attributes fq = {{"Flows", "1024"},
                           {"DropBatchSize", "64"},
                           {"Perturbation", "0"},
                           {"Quantum", "1500"},
                           {"EnableSetAssociativeHash", "false"},
                           {"SetWays", "8"},
                           {"CeThreshold", kTimeMax},
                           {"UseL4s", "false"}};
    // COBALT's CoDel and BLUE parameters ([queue.cobalt] and [queue.fq_cobalt] defaults):
    // target 5 ms, interval 100 ms, BLUE starting at 0 and moving by 1/256 up and 1/4096 down,
    // BLUE threshold 400 ms; ECN off.
    const Attributes cobalt = {{"Target", "5ms"},
                               {"Interval", "100ms"},
                               {"UseEcn", "false"},
                               {"Pdrop", "0"},
                               {"Increment", "0.00390625"},
                               {"Decrement", "0.000244140625"},
                               {"BlueThreshold", "400ms"}};
    auto join = [&buffer](const Attributes& a, const Attributes& b) {
        Attributes out = {{"MaxSize", buffer}};
        out.insert(out.end(), a.begin(), a.end());
        out.insert(out.end(), b.begin(), b.end());
        return out;
    };
    if (aqm == "fq_codel")
    {
        // [queue.fq_codel]: CoDel target 5 ms, interval 100 ms, mtu_bytes 1500 (the child
        // CoDel queue discs' MinBytes); ECN off (ns-3's default is on).
        return {"ns3::FqCoDelQueueDisc",
                join({{"Target", "5ms"},
                      {"Interval", "100ms"},
                      {"ns3::CoDelQueueDisc::MinBytes", "1500"},
                      {"UseEcn", "false"}},
                     fq)};
    }
    if (aqm == "fq_pie")
    {
        // [queue.fq_pie]: PIE's values as for --aqm=pie (FqPieQueueDisc's defaults are
        // the same); MarkEcnThreshold also as the child PieQueueDisc default, because
        // FqPieQueueDisc does not pass it on.
        return {"ns3::FqPieQueueDisc",
                join({{"MeanPktSize", "1000"},
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
                      {"ns3::PieQueueDisc::MarkEcnThreshold", "0.1"},
                      {"ns3::PieQueueDisc::ActiveThreshold", kTimeMax}},
                     fq)};
    }
    if (aqm == "cobalt")
    {
        return {"ns3::CobaltQueueDisc",
                join(cobalt, {{"CeThreshold", kTimeMax}, {"UseL4s", "false"}})};
    }
    if (aqm == "fq_cobalt")
    {
        return {"ns3::FqCobaltQueueDisc", join(cobalt, fq)};
    }
    return {};
}

// Whether `name` is a type's default ("ns3::Type::Attribute") rather than an attribute of the
// queue disc.
inline bool
IsTypeDefault(const std::string& name)
{
    return name.find("::") != std::string::npos;
}

// The DRR quantum of a flow-queueing queue disc (false: the queue disc has none).
inline bool
SetQuantum(ns3::Ptr<ns3::QueueDisc> qd, uint32_t quantum)
{
    if (auto q = ns3::DynamicCast<ns3::FqCoDelQueueDisc>(qd))
    {
        q->SetQuantum(quantum);
    }
    else if (auto q = ns3::DynamicCast<ns3::FqPieQueueDisc>(qd))
    {
        q->SetQuantum(quantum);
    }
    else if (auto q = ns3::DynamicCast<ns3::FqCobaltQueueDisc>(qd))
    {
        q->SetQuantum(quantum);
    }
    else
    {
        return false;
    }
    return true;
}

inline bool
GetQuantum(ns3::Ptr<ns3::QueueDisc> qd, uint32_t& quantum)
{
    if (auto q = ns3::DynamicCast<ns3::FqCoDelQueueDisc>(qd))
    {
        quantum = q->GetQuantum();
    }
    else if (auto q = ns3::DynamicCast<ns3::FqPieQueueDisc>(qd))
    {
        quantum = q->GetQuantum();
    }
    else if (auto q = ns3::DynamicCast<ns3::FqCobaltQueueDisc>(qd))
    {
        quantum = q->GetQuantum();
    }
    else
    {
        return false;
    }
    return true;
}

// A type's default as ns-3 holds it now, serialised ("" when there is no such attribute).
inline std::string
TypeDefault(const std::string& fullName)
{
    size_t sep = fullName.rfind("::");
    ns3::TypeId tid;
    ns3::TypeId::AttributeInformation info;
    if (sep == std::string::npos ||
        !ns3::TypeId::LookupByNameFailSafe(fullName.substr(0, sep), &tid) ||
        !tid.LookupAttributeByName(fullName.substr(sep + 2), &info))
    {
        return "";
    }
    return info.initialValue->SerializeToString(info.checker);
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

// Set every attribute on the installed (not yet initialised) queue disc, a type's default
// for "ns3::Type::Attribute", the quantum with SetQuantum(); false (with a message on stderr)
// for an attribute the queue disc does not have or a value it refuses.
inline bool
Apply(ns3::Ptr<ns3::QueueDisc> qd, const QueueDiscSpec& spec)
{
    for (const auto& kv : spec.attributes)
    {
        bool ok;
        if (IsTypeDefault(kv.first))
        {
            ok = kv.second == kTimeMax
                     ? ns3::Config::SetDefaultFailSafe(kv.first,
                                                       ns3::TimeValue(ns3::Time::Max()))
                     : ns3::Config::SetDefaultFailSafe(kv.first, ns3::StringValue(kv.second));
        }
        else if (kv.first == "Quantum")
        {
            char* end = nullptr;
            unsigned long quantum = std::strtoul(kv.second.c_str(), &end, 10);
            ok = !kv.second.empty() && *end == '\0' && quantum <= UINT32_MAX &&
                 SetQuantum(qd, static_cast<uint32_t>(quantum));
        }
        else
        {
            ok = kv.second == kTimeMax
                     ? qd->SetAttributeFailSafe(kv.first, ns3::TimeValue(ns3::Time::Max()))
                     : qd->SetAttributeFailSafe(kv.first, ns3::StringValue(kv.second));
        }
        if (!ok)
        {
            std::cerr << spec.type << ": cannot set " << kv.first << "=" << kv.second << "\n";
            return false;
        }
    }
    return true;
}

// The attributes as the queue disc holds them now (types' defaults as ns-3 holds them, the
// quantum from GetQuantum()), serialised by ns-3, for the JSON output; an attribute ns-3 can
// set but not read (RedQueueDisc's Alpha and Beta) shows the value given.
inline Attributes
ReadBack(ns3::Ptr<ns3::QueueDisc> qd, const QueueDiscSpec& spec)
{
    Attributes out;
    for (const auto& kv : spec.attributes)
    {
        std::string value;
        bool ok;
        uint32_t quantum = 0;
        if (IsTypeDefault(kv.first))
        {
            value = TypeDefault(kv.first);
            ok = !value.empty();
        }
        else if (kv.first == "Quantum")
        {
            ok = GetQuantum(qd, quantum);
            value = std::to_string(quantum);
        }
        else
        {
            ns3::StringValue v;
            ok = qd->GetAttributeFailSafe(kv.first, v);
            value = v.Get();
        }
        out.emplace_back(kv.first, ok ? value : kv.second + " (as set; not readable)");
    }
    return out;
}

// Every attribute of a queue disc's own type (not its parents'), as it holds them now: for
// the first child queue disc of a flow-queueing disc, to show what its flow queues ran with.
inline Attributes
ReadAll(ns3::Ptr<ns3::QueueDisc> qd)
{
    Attributes out;
    ns3::TypeId tid = qd->GetInstanceTypeId();
    for (size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        ns3::TypeId::AttributeInformation info = tid.GetAttribute(i);
        ns3::StringValue v;
        if (qd->GetAttributeFailSafe(info.name, v))
        {
            out.emplace_back(info.name, v.Get());
        }
    }
    return out;
}

} // namespace aqm_setup

#endif
