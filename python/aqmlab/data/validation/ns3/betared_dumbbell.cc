// The BetaRED dumbbell (Gimenez et al., Appl. Sci. 2022, section 3.1) on ns-3.37, for comparing
// aqmlab's numbers with an independent packet-level simulator: `aqmlab validate ns3` builds and
// runs it. See docs/validation-ns3.md.
//
// Dumbbell: N senders S_i -> R1 -> R2 -> N sinks D_i. Edge links 100 Mb/s, 1 ms; bottleneck
// R1 -> R2 50 Mb/s, 10 ms; 1000 packets of buffer on every port. The AQM under test is the root
// queue disc of R1's bottleneck device (whose own device queue is cut to 1 packet so that the
// queue disc holds the backlog); aqm_setup.h lists its attributes. Every other port is a
// 1000-packet DropTailQueue on the device, without a queue disc. Long-lived TCP bulk flows
// with the congestion control --tcp (TcpCubic unless given), ECN (--ecn) and pacing (--pacing)
// off unless asked for, ns-3.37 defaults otherwise. Scenario 1: --schedule=constant --flows=N; scenario 2:
// --schedule=betared (N = nBase, nMid, nMax, nMid, nBase over five phases).
// Variants: --senderDelays / --receiverDelays give flow i the access delay i mod the list's
// length (mixed round-trip times, with --bottleneckDelay); --udpFlows adds constant-bit-rate
// UDP flows on hosts of their own, after the TCP flows.
//
// Build: g++ -O2 -std=c++17 betared_dumbbell.cc -I/usr/include -lns3-... (see run_ns3.sh)
// Run:   ./betared_dumbbell --aqm=droptail|red|ared|pie|codel|cobalt|fq_codel|fq_pie|fq_cobalt
//                          [--duration=250] [--schedule=betared|constant] [--flows=100]
//                          [--nMax=800] [--measureFrom=0] [--qdisc=Name=Value,...]
//                          [--bottleneckDelay=10] [--senderDelays=1,...] [--receiverDelays=1]
//                          [--udpFlows=0 --udpRateKbps=75000 --udpPacketBytes=1000]
//                          [--tcp=TcpCubic] [--ecn=false] [--pacing=false]
//                          [--stop=quiet|close] [--run=1] [--progress=10]
//                          [--ns3::Class::Attribute=value ...]
// Output: one JSON line on stdout: the metrics over [measureFrom, duration], per-phase
// figures, whole-run TCP events and the queue disc's attributes as set (--PrintHelp lists
// every option).

#include "aqm_setup.h"
#include "dumbbell_probes.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/nix-vector-routing-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// The bottleneck's rate, b/s (--bottleneckRate).
double g_bottleneckBps = 50e6;
const uint32_t kUdpHeaderBytes = 28; // IPv4 20 + UDP 8
// The smallest UDP packet whose wire size (PPP 2 more) tells it from a TCP control packet.
const uint32_t kMinUdpPacketBytes = probes::kMaxHeaderWireBytes - 2 + 1;

// A static route on the node at end `from` of point-to-point `link` to `net`/`mask`, through
// the link's other end (`--routing=static`).
void
RouteThrough(const NetDeviceContainer& link, uint32_t from, const char* net, const char* mask)
{
    Ptr<NetDevice> own = link.Get(from);
    Ptr<NetDevice> far = link.Get(1 - from);
    Ptr<Ipv4> ownIp = own->GetNode()->GetObject<Ipv4>();
    Ptr<Ipv4> farIp = far->GetNode()->GetObject<Ipv4>();
    Ipv4Address via = farIp->GetAddress(farIp->GetInterfaceForDevice(far), 0).GetLocal();
    Ipv4StaticRoutingHelper helper;
    helper.GetStaticRouting(ownIp)->AddNetworkRouteTo(Ipv4Address(net),
                                                      Ipv4Mask(mask),
                                                      via,
                                                      ownIp->GetInterfaceForDevice(own));
}

// Progress report on stderr every `interval` simulated seconds.
std::chrono::steady_clock::time_point g_wallStart;

void
Progress(double interval)
{
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - g_wallStart).count();
    std::cerr << "t=" << Simulator::Now().GetSeconds() << " s  wall=" << wall << " s" << std::endl;
    Simulator::Schedule(Seconds(interval), &Progress, interval);
}

std::string
Json(double v)
{
    if (!std::isfinite(v))
    {
        return "null";
    }
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
}

std::string
Quote(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

double
Ratio(double num, double den)
{
    return den > 0 ? num / den : std::nan("");
}

// A time in ms as ns-3 parses it, in whole nanoseconds.
std::string
MsToTimeString(double ms)
{
    return std::to_string(std::llround(ms * 1e6)) + "ns";
}

// "1,2.5,40" -> {1, 2.5, 40}; false for an empty list or an item that is not a number >= 0.
bool
ParseDelays(const std::string& text, std::vector<double>& out)
{
    out.clear();
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        char* end = nullptr;
        double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
        {
            return false;
        }
        out.push_back(v);
    }
    return !out.empty();
}

struct Plan
{
    double start;
    double stop; // < 0: runs to the end
    bool udp;
};

// Jain's index (sum x)^2 / (n sum x^2) over the flows active at some time in [a, b], each x the
// bytes it delivered in the window (as aqmlab counts them) over its active time inside it.
double
JainIndex(const probes::Snapshot& a, const probes::Snapshot& b, const std::vector<Plan>& plans)
{
    double sum = 0.0;
    double sum2 = 0.0;
    uint32_t n = 0;
    for (size_t i = 0; i < plans.size() && i < b.flowRx.size(); ++i)
    {
        double from = std::max(a.t, plans[i].start);
        double to = plans[i].stop >= 0 ? std::min(b.t, plans[i].stop) : b.t;
        if (!(to > from))
        {
            continue;
        }
        uint64_t before = i < a.flowRx.size() ? a.flowRx[i] : 0;
        double x = (b.flowRx[i] - before) * 8.0 / (to - from);
        sum += x;
        sum2 += x * x;
        n++;
    }
    return n > 0 && sum2 > 0 ? sum * sum / (n * sum2) : std::nan("");
}

// The metrics between two snapshots, as JSON members (no braces), with the definitions of
// docs/validation-ns3.md: time-weighted queue, drops / arrivals at the queue disc, wire busy
// time / window, in-order payload delivered to the sinks, delay from sender wire to receiver.
std::string
WindowMetrics(const probes::Snapshot& a, const probes::Snapshot& b, const std::vector<Plan>& plans)
{
    double len = b.t - a.t;
    double meanQ = Ratio(b.area - a.area, len);
    double meanQ2 = Ratio(b.area2 - a.area2, len);
    double varQ = std::max(0.0, meanQ2 - meanQ * meanQ);
    uint64_t arrivals = b.arrivals - a.arrivals;
    uint64_t delivered = b.delayCount - a.delayCount;
    std::ostringstream js;
    js << "\"window_start_s\":" << Json(a.t) << ",\"window_end_s\":" << Json(b.t)
       << ",\"avg_queue_pkts\":" << Json(meanQ) << ",\"std_queue_pkts\":" << Json(std::sqrt(varQ))
       << ",\"avg_queue_qdisc_pkts\":" << Json(Ratio(b.qdiscArea - a.qdiscArea, len))
       << ",\"drop_rate\":" << Json(Ratio(double(b.drops - a.drops), double(arrivals)))
       << ",\"link_efficiency\":"
       << Json(Ratio((b.txBytes - a.txBytes) * 8.0 / g_bottleneckBps, len))
       << ",\"throughput_mbps\":" << Json(Ratio((b.rxBytes - a.rxBytes) * 8.0 / 1e6, len))
       << ",\"throughput_tcp_mbps\":"
       << Json(Ratio((b.tcpRxBytes - a.tcpRxBytes) * 8.0 / 1e6, len))
       << ",\"throughput_udp_mbps\":"
       << Json(Ratio((b.udpRxBytes - a.udpRxBytes) * 8.0 / 1e6, len))
       << ",\"jain_fairness\":" << Json(JainIndex(a, b, plans))
       << ",\"delay_mean_ms\":" << Json(1e3 * Ratio(b.delaySum - a.delaySum, double(delivered)))
       << ",\"jitter_ms\":"
       << Json(1e3 * Ratio(b.jitterSum - a.jitterSum, double(b.jitterTerms - a.jitterTerms)))
       << ",\"bottleneck_arrivals\":" << arrivals
       << ",\"bottleneck_drops\":" << b.drops - a.drops
       << ",\"bottleneck_marks\":" << b.marks - a.marks
       << ",\"bottleneck_departures\":" << b.departures - a.departures
       << ",\"bottleneck_tx_pkts\":" << b.txPkts - a.txPkts
       << ",\"data_sent\":" << b.dataSent - a.dataSent << ",\"data_delivered\":" << delivered
       << ",\"tcp_aborted_connections\":" << b.aborts - a.aborts;
    return js.str();
}

// The congestion control called ns3::<name>; false when there is no such type or it is not a
// TcpCongestionOps. Checked by creating one: ns-3.37's TcpCubic names TcpSocketBase as its
// parent type, so TypeId::IsChildOf(TcpCongestionOps) is false for it although it is one.
bool
CongestionControl(const std::string& name, TypeId& tid)
{
    if (!TypeId::LookupByNameFailSafe("ns3::" + name, &tid) || !tid.HasConstructor())
    {
        return false;
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    return DynamicCast<TcpCongestionOps>(factory.Create()) != nullptr;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    std::string aqm = "droptail";
    std::string schedule = "betared";
    double duration = 250.0;
    double measureFrom = 0.0;
    uint32_t flowsConstant = 100; // for --schedule=constant
    uint32_t nBase = 100;
    uint32_t nMid = 200;
    uint32_t nMax = 800;
    double phase = 50.0;
    double startJitter = 1.0;
    uint32_t segmentSize = 948; // 948 B payload + 32 B TCP (timestamps) + 20 B IP = 1000 B
    uint32_t bufferPkts = 1000;
    uint32_t seed = 1;
    uint32_t run = 1;
    double progress = 0.0;
    std::string stopMode = "quiet";
    std::string qdiscOverrides;
    double bottleneckDelayMs = 10.0;
    std::string senderDelaysText = "1";
    std::string receiverDelaysText = "1";
    uint32_t udpFlows = 0;
    double udpRateKbps = 0.0;
    uint32_t udpPacketBytes = 1000;
    std::string tcpType = "TcpCubic";
    bool useEcn = false;
    bool pacing = false;
    double bottleneckMbps = 50.0;
    std::string routing = "global";

    CommandLine cmd(__FILE__);
    cmd.AddValue("aqm",
                 "droptail, red, ared, pie, codel, cobalt, fq_codel, fq_pie or fq_cobalt (see "
                 "aqm_setup.h)",
                 aqm);
    cmd.AddValue("schedule", "betared (scenario 2 steps) or constant", schedule);
    cmd.AddValue("duration", "simulated time, s", duration);
    cmd.AddValue("measureFrom", "start of the measurement window [measureFrom, duration], s",
                 measureFrom);
    cmd.AddValue("flows", "number of flows for --schedule=constant", flowsConstant);
    cmd.AddValue("nBase", "flows in phases 1 and 5", nBase);
    cmd.AddValue("nMid", "flows in phases 2 and 4", nMid);
    cmd.AddValue("nMax", "flows in phase 3", nMax);
    cmd.AddValue("phase", "phase length, s", phase);
    cmd.AddValue("startJitter", "uniform random start offset in [0, startJitter] s", startJitter);
    cmd.AddValue("segmentSize", "TCP SegmentSize, bytes", segmentSize);
    cmd.AddValue("buffer", "buffer of every router port, packets", bufferPkts);
    cmd.AddValue("bottleneckRate", "rate of the bottleneck R1 -> R2, Mb/s", bottleneckMbps);
    cmd.AddValue("routing",
                 "global (Ipv4GlobalRoutingHelper), static (a default route on each host, one "
                 "route per side on each router: the same paths, without global routing's "
                 "per-node table of every link, which does not fit in memory for 10 000 flows) "
                 "or nix (Ipv4NixVectorHelper: the same paths, looked up once per destination "
                 "instead of scanning a table of every link for every packet)",
                 routing);
    cmd.AddValue("bottleneckDelay", "one-way delay of the bottleneck R1 -> R2, ms",
                 bottleneckDelayMs);
    cmd.AddValue("senderDelays",
                 "access delays of the senders' links, ms, comma-separated: flow i gets item i "
                 "mod the list's length",
                 senderDelaysText);
    cmd.AddValue("receiverDelays", "the same for the receivers' links", receiverDelaysText);
    cmd.AddValue("udpFlows",
                 "constant-bit-rate UDP flows added after the TCP flows, each on its own hosts "
                 "and starting like a TCP flow",
                 udpFlows);
    cmd.AddValue("udpRateKbps", "rate of each UDP flow, kb/s", udpRateKbps);
    cmd.AddValue("udpPacketBytes", "size of each UDP packet, IP and UDP headers included",
                 udpPacketBytes);
    cmd.AddValue("qdisc", "queue disc attributes replacing the --aqm defaults: Name=Value,...",
                 qdiscOverrides);
    cmd.AddValue("tcp",
                 "congestion control: the name of an ns-3 TcpCongestionOps type, e.g. TcpNewReno "
                 "(its attributes as --ns3::TcpXxx::Name=Value)",
                 tcpType);
    cmd.AddValue("ecn", "ECN-capable TCP senders and receivers (TcpSocketBase::UseEcn On)", useEcn);
    cmd.AddValue("pacing", "TCP pacing (TcpSocketState::EnablePacing)", pacing);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("stop",
                 "how a flow stops: quiet (stop writing, keep the socket open) or close "
                 "(BulkSendApplication, which closes the socket)",
                 stopMode);
    cmd.AddValue("progress", "report progress on stderr every this many simulated s (0: off)",
                 progress);
    cmd.Parse(argc, argv);

    std::string bufStr = std::to_string(bufferPkts) + "p";
    if (!(bottleneckDelayMs >= 0) || !std::isfinite(bottleneckDelayMs))
    {
        std::cerr << "--bottleneckDelay must be a number >= 0 (ms)\n";
        return 2;
    }
    std::string bottleneckDelay = MsToTimeString(bottleneckDelayMs);
    if (!(bottleneckMbps > 0) || !std::isfinite(bottleneckMbps))
    {
        std::cerr << "--bottleneckRate must be a number > 0 (Mb/s)\n";
        return 2;
    }
    if (routing != "global" && routing != "static" && routing != "nix")
    {
        std::cerr << "--routing must be global, static or nix\n";
        return 2;
    }
    g_bottleneckBps = bottleneckMbps * 1e6;
    std::ostringstream rateText;
    rateText << std::setprecision(17) << g_bottleneckBps << "bps";
    const std::string bottleneckRate = rateText.str();
    aqm_setup::QueueDiscSpec spec =
        aqm_setup::DefaultSpec(aqm, bufStr, bottleneckRate, bottleneckDelay);
    if (spec.type.empty())
    {
        std::cerr << "unknown --aqm=" << aqm
                  << " (droptail, red, ared, pie, codel, cobalt, fq_codel, fq_pie or "
                     "fq_cobalt)\n";
        return 2;
    }
    std::vector<double> senderDelays;
    std::vector<double> receiverDelays;
    if (!ParseDelays(senderDelaysText, senderDelays) ||
        !ParseDelays(receiverDelaysText, receiverDelays))
    {
        std::cerr << "--senderDelays and --receiverDelays: comma-separated numbers >= 0 (ms)\n";
        return 2;
    }
    if (udpFlows > 0 && (!(udpRateKbps > 0) || udpPacketBytes < kMinUdpPacketBytes))
    {
        std::cerr << "--udpFlows needs --udpRateKbps > 0 and --udpPacketBytes >= "
                  << kMinUdpPacketBytes << "\n";
        return 2;
    }
    if (!aqm_setup::ApplyOverrides(spec, qdiscOverrides))
    {
        return 2;
    }
    TypeId tcpTid;
    if (!CongestionControl(tcpType, tcpTid))
    {
        std::cerr << "unknown --tcp=" << tcpType
                  << " (an ns-3 congestion control: TcpNewReno, TcpCubic, TcpLinuxReno, ...)\n";
        return 2;
    }
    if (stopMode != "quiet" && stopMode != "close")
    {
        std::cerr << "unknown --stop=" << stopMode << " (quiet or close)\n";
        return 2;
    }
    if (!(duration > 0) || !(measureFrom >= 0 && measureFrom < duration))
    {
        std::cerr << "--measureFrom must be in [0, duration) and --duration > 0\n";
        return 2;
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    // --- flow plan: start and stop time of every flow -----------------------------------------
    std::vector<Plan> plans;
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    jitter->SetAttribute("Min", DoubleValue(0.0));
    jitter->SetAttribute("Max", DoubleValue(startJitter));
    if (schedule == "constant")
    {
        for (uint32_t i = 0; i < flowsConstant; ++i)
        {
            plans.push_back({jitter->GetValue(), -1.0, false});
        }
    }
    else if (schedule == "betared")
    {
        // N = nBase on [0, p), nMid on [p, 2p), nMax on [2p, 3p), nMid on [3p, 4p), nBase after.
        for (uint32_t i = 0; i < nBase; ++i)
        {
            plans.push_back({jitter->GetValue(), -1.0, false});
        }
        for (uint32_t i = nBase; i < nMid; ++i)
        {
            plans.push_back({phase + jitter->GetValue(), 4 * phase, false});
        }
        for (uint32_t i = nMid; i < nMax; ++i)
        {
            plans.push_back({2 * phase + jitter->GetValue(), 3 * phase, false});
        }
    }
    else
    {
        std::cerr << "unknown --schedule=" << schedule << " (betared or constant)\n";
        return 2;
    }
    // UDP flows run from their start to the end, after the TCP flows.
    uint32_t nTcp = plans.size();
    for (uint32_t i = 0; i < udpFlows; ++i)
    {
        plans.push_back({jitter->GetValue(), -1.0, true});
    }
    uint32_t nFlows = plans.size();
    if (routing == "static" && nFlows > 16384)
    {
        std::cerr << "--routing=static: at most 16384 flows (one /30 each in a /16 per side)\n";
        return 2;
    }
    probes::g_flowEstablished.assign(nFlows, -1.0);
    probes::g_lastDelay.assign(nFlows, -1.0);

    // --- TCP: ns-3.37 defaults except the segment size, the congestion control, ECN, pacing --
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tcpTid));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    if (useEcn)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }
    if (pacing)
    {
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }

    // --- nodes and links ----------------------------------------------------------------------
    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(nFlows);
    NodeContainer sinks;
    sinks.Create(nFlows);

    PointToPointHelper edge;
    edge.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    edge.SetChannelAttribute("Delay", StringValue("1ms"));
    edge.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(bufStr));

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(bufStr));

    InternetStackHelper stack;
    Ipv4NixVectorHelper nixRouting;
    if (routing == "nix")
    {
        stack.SetRoutingHelper(nixRouting);
    }
    stack.InstallAll();

    NetDeviceContainer allDevices;
    NetDeviceContainer bnDevices = bottleneck.Install(routers.Get(0), routers.Get(1));
    allDevices.Add(bnDevices);
    std::vector<NetDeviceContainer> leftDevs(nFlows);
    std::vector<NetDeviceContainer> rightDevs(nFlows);
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        edge.SetChannelAttribute(
            "Delay", StringValue(MsToTimeString(senderDelays[i % senderDelays.size()])));
        leftDevs[i] = edge.Install(senders.Get(i), routers.Get(0));
        edge.SetChannelAttribute(
            "Delay", StringValue(MsToTimeString(receiverDelays[i % receiverDelays.size()])));
        rightDevs[i] = edge.Install(routers.Get(1), sinks.Get(i));
        allDevices.Add(leftDevs[i]);
        allDevices.Add(rightDevs[i]);
    }

    // --- addresses: one /30 per link (10.1.0.0/30 bottleneck, 10.2.x senders, 10.3.x sinks) -
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.0.0", "255.255.255.252");
    addr.Assign(bnDevices);
    std::vector<Ipv4Address> sinkAddr(nFlows);
    addr.SetBase("10.2.0.0", "255.255.255.252");
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        addr.Assign(leftDevs[i]);
        addr.NewNetwork();
    }
    addr.SetBase("10.3.0.0", "255.255.255.252");
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        Ipv4InterfaceContainer ifc = addr.Assign(rightDevs[i]);
        sinkAddr[i] = ifc.GetAddress(1);
        addr.NewNetwork();
    }

    // --- queues ---------------------------------------------------------------------------------
    // Assign() installed the default FqCoDel queue disc on every device: remove them all.
    TrafficControlHelper tchUninstall;
    tchUninstall.Uninstall(allDevices);

    // The bottleneck port's device queue holds one packet; the queue disc holds the backlog.
    Ptr<NetDevice> bnDev = bnDevices.Get(0);
    Ptr<PointToPointNetDevice> bnP2p = DynamicCast<PointToPointNetDevice>(bnDev);
    bnP2p->GetQueue()->SetMaxSize(QueueSize("1p"));

    TrafficControlHelper tch;
    tch.SetRootQueueDisc(spec.type);
    Ptr<QueueDisc> qd = tch.Install(bnDev).Get(0);
    // Queue discs read their attributes when they are initialised, at the start of the run.
    if (!aqm_setup::Apply(qd, spec))
    {
        return 2;
    }

    qd->TraceConnectWithoutContext(
        "PacketsInQueue", MakeCallback(&probes::QueueIntegral::QdiscChange, &probes::g_queue));
    bnP2p->GetQueue()->TraceConnectWithoutContext(
        "PacketsInQueue", MakeCallback(&probes::QueueIntegral::DeviceChange, &probes::g_queue));
    bnP2p->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&probes::BottleneckTx));
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        leftDevs[i].Get(0)->TraceConnectWithoutContext("PhyTxBegin",
                                                       MakeCallback(&probes::SenderTx));
        rightDevs[i].Get(1)->TraceConnectWithoutContext(
            "PhyRxEnd", MakeBoundCallback(&probes::ReceiverRx, i));
    }

    auto routeStart = std::chrono::steady_clock::now();
    if (routing == "global")
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }
    else if (routing == "static")
    {
        // Senders' links are in 10.2.0.0/16 and sinks' in 10.3.0.0/16 (at most 16384 each).
        RouteThrough(bnDevices, 0, "10.3.0.0", "255.255.0.0");
        RouteThrough(bnDevices, 1, "10.2.0.0", "255.255.0.0");
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            RouteThrough(leftDevs[i], 0, "0.0.0.0", "0.0.0.0");
            RouteThrough(rightDevs[i], 1, "0.0.0.0", "0.0.0.0");
        }
    }
    double routeWall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - routeStart).count();

    // --- applications ---------------------------------------------------------------------------
    const uint16_t port = 9;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        PacketSinkHelper sinkHelper(plans[i].udp ? "ns3::UdpSocketFactory"
                                                 : "ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sinkHelper.Install(sinks.Get(i));
        s.Start(Seconds(0.0));
        probes::g_flows.sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        probes::g_flows.udp.push_back(plans[i].udp);

        if (plans[i].udp)
        {
            // Constant bit rate: the first packet at the start, then one every interval
            // (packet bits / rate, in whole ns), until the end of the run.
            Ptr<probes::CbrSender> udp = CreateObject<probes::CbrSender>();
            udp->Configure(
                InetSocketAddress(sinkAddr[i], port),
                udpPacketBytes - kUdpHeaderBytes,
                NanoSeconds(std::llround(udpPacketBytes * 8e9 / (udpRateKbps * 1e3))));
            senders.Get(i)->AddApplication(udp);
            udp->SetStartTime(Seconds(plans[i].start));
            continue;
        }
        ApplicationContainer a;
        if (stopMode == "close")
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr[i], port));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            a = bulk.Install(senders.Get(i));
        }
        else
        {
            Ptr<probes::QuietStopBulkSender> app = CreateObject<probes::QuietStopBulkSender>();
            app->SetPeer(InetSocketAddress(sinkAddr[i], port));
            senders.Get(i)->AddApplication(app);
            a.Add(app);
        }
        a.Start(Seconds(plans[i].start));
        Simulator::Schedule(Seconds(plans[i].start) + NanoSeconds(1),
                            &probes::HookSocket,
                            a.Get(0),
                            i);
        if (plans[i].stop >= 0)
        {
            a.Stop(Seconds(plans[i].stop));
        }
    }

    // Snapshots: the window's start, and the phase boundaries for per-phase figures.
    probes::g_flows.udpPayloadBytes = udpPacketBytes - kUdpHeaderBytes;
    probes::g_flows.udpHeaderBytes = kUdpHeaderBytes;
    std::vector<probes::Snapshot> phaseSnaps;
    auto snapInto = [&](std::vector<probes::Snapshot>* into) {
        into->push_back(probes::Take(Simulator::Now().GetSeconds(), qd));
    };
    std::vector<probes::Snapshot> startSnap;
    if (measureFrom > 0)
    {
        Simulator::Schedule(Seconds(measureFrom), [&]() { snapInto(&startSnap); });
    }
    if (schedule == "betared")
    {
        for (double t = phase; t < duration - 1e-9; t += phase)
        {
            Simulator::Schedule(Seconds(t), [&]() { snapInto(&phaseSnaps); });
        }
    }

    auto simStart = std::chrono::steady_clock::now();
    g_wallStart = simStart;
    if (progress > 0)
    {
        Simulator::Schedule(Seconds(progress), &Progress, progress);
    }
    double setupWall = std::chrono::duration<double>(simStart - wallStart).count();
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double simWall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - simStart).count();

    // --- results ------------------------------------------------------------------------------
    probes::Snapshot end = probes::Take(duration, qd);
    probes::Snapshot windowStart = startSnap.empty() ? probes::Snapshot{} : startSnap.front();
    phaseSnaps.push_back(end);

    // Handshake delays; a flow that never connected before its stop (or the end) counts apart.
    uint32_t established = 0;
    uint32_t notConnectedBeforeStop = 0;
    double connectSum = 0.0;
    double connectMax = 0.0;
    for (uint32_t i = 0; i < nTcp; ++i)
    {
        double stopAt = plans[i].stop >= 0 ? plans[i].stop : duration;
        double at = probes::g_flowEstablished[i];
        if (at >= 0)
        {
            established++;
            connectSum += at - plans[i].start;
            connectMax = std::max(connectMax, at - plans[i].start);
        }
        if (at < 0 || at >= stopAt)
        {
            notConnectedBeforeStop++;
        }
    }

    QueueDisc::Stats st = qd->GetStats();
    std::ostringstream js;
    js << "{\"simulator\":\"ns-3.37\",\"aqm\":" << Quote(aqm) << ",\"schedule\":"
       << Quote(schedule) << ",\"flows\":" << nFlows << ",\"tcp_flows\":" << nTcp
       << ",\"udp_flows\":" << udpFlows << ",\"duration_s\":" << Json(duration)
       << ",\"stop\":" << Quote(stopMode) << ",\"segment_size\":" << segmentSize
       << ",\"seed\":" << seed << ",\"run\":" << run
       << ",\"tcp_type\":" << Quote(tcpTid.GetName())
       << ",\"tcp_ecn\":" << (useEcn ? "true" : "false")
       << ",\"tcp_pacing\":" << (pacing ? "true" : "false") << ","
       << WindowMetrics(windowStart, end, plans)
       << ",\"max_queue_pkts\":" << probes::g_queue.maximum
       << ",\"qdisc_type\":" << Quote(spec.type) << ",\"qdisc_attributes\":{";
    bool first = true;
    for (const auto& kv : aqm_setup::ReadBack(qd, spec))
    {
        js << (first ? "" : ",") << Quote(kv.first) << ":" << Quote(kv.second);
        first = false;
    }
    js << "},\"qdisc_drop_reasons\":{";
    first = true;
    for (const auto& kv : st.nDroppedPacketsBeforeEnqueue)
    {
        js << (first ? "" : ",") << Quote(kv.first) << ":" << kv.second;
        first = false;
    }
    for (const auto& kv : st.nDroppedPacketsAfterDequeue)
    {
        js << (first ? "" : ",") << Quote(kv.first + " (after dequeue)") << ":" << kv.second;
        first = false;
    }
    js << "},\"qdisc_mark_reasons\":{";
    first = true;
    for (const auto& kv : st.nMarkedPackets)
    {
        js << (first ? "" : ",") << Quote(kv.first) << ":" << kv.second;
        first = false;
    }
    // A flow-queueing disc: the flow queues it created (one per hash bucket used), the packets
    // they hold at the end and the drops they made over the run (the root's PacketsInQueue and
    // statistics include them: the counts show it), and the attributes of the first one.
    uint64_t flowQueuePackets = 0;
    uint64_t flowQueueDrops = 0;
    for (size_t i = 0; i < qd->GetNQueueDiscClasses(); ++i)
    {
        Ptr<QueueDisc> child = qd->GetQueueDiscClass(i)->GetQueueDisc();
        flowQueuePackets += child->GetNPackets();
        flowQueueDrops += child->GetStats().nTotalDroppedPackets;
    }
    js << "},\"qdisc_packets_at_end\":" << qd->GetNPackets()
       << ",\"qdisc_drops_total\":" << st.nTotalDroppedPackets
       << ",\"qdisc_flow_queues\":" << qd->GetNQueueDiscClasses()
       << ",\"flow_queue_packets_at_end\":" << flowQueuePackets
       << ",\"flow_queue_drops_total\":" << flowQueueDrops;
    if (qd->GetNQueueDiscClasses() > 0)
    {
        Ptr<QueueDisc> child = qd->GetQueueDiscClass(0)->GetQueueDisc();
        js << ",\"child_qdisc_type\":" << Quote(child->GetInstanceTypeId().GetName())
           << ",\"child_qdisc_attributes\":{";
        first = true;
        for (const auto& kv : aqm_setup::ReadAll(child))
        {
            js << (first ? "" : ",") << Quote(kv.first) << ":" << Quote(kv.second);
            first = false;
        }
        js << "}";
    }
    js << ",\"tcp_fast_recoveries\":" << probes::g_recoveries
       << ",\"tcp_timeout_episodes\":" << probes::g_lossEpisodes
       << ",\"tcp_rto_backoffs\":" << probes::g_rtoBackoffs
       << ",\"connections_established\":" << established
       << ",\"connect_delay_mean_s\":" << Json(established ? connectSum / established : 0.0)
       << ",\"connect_delay_max_s\":" << Json(connectMax)
       << ",\"flows_not_connected_before_stop\":" << notConnectedBeforeStop << ",\"phases\":[";
    probes::Snapshot prev;
    for (size_t i = 0; i < phaseSnaps.size(); ++i)
    {
        js << (i ? "," : "") << "{" << WindowMetrics(prev, phaseSnaps[i], plans) << "}";
        prev = phaseSnaps[i];
    }
    js << "],\"wall_setup_s\":" << Json(setupWall) << ",\"wall_routing_s\":" << Json(routeWall)
       << ",\"wall_run_s\":" << Json(simWall) << "}";
    std::cout << js.str() << std::endl;

    // The sinks are released before the simulator, not by a static destructor after it.
    probes::g_flows = probes::Flows();
    Simulator::Destroy();
    return 0;
}
