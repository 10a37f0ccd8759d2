// BetaRED scenario 2 (Gimenez et al., Appl. Sci. 2022, section 3.1) on ns-3.37, for comparing
// aqmlab's numbers with an independent packet-level simulator. See docs/validation-ns3.md.
//
// Dumbbell: N senders S_i -> R1 -> R2 -> N sinks D_i. Edge links 100 Mb/s, 1 ms; bottleneck
// R1 -> R2 50 Mb/s, 10 ms; 1000 packets of buffer on every port. The AQM under test is the root
// queue disc of R1's bottleneck device (whose own device queue is cut to 1 packet so that the
// queue disc holds the backlog). Every other port is a 1000-packet DropTailQueue on the device,
// without a queue disc. Long-lived TCP Cubic bulk flows (ns-3.37 defaults otherwise).
//
// Build: g++ -O2 -std=c++17 betared_dumbbell.cc -I/usr/include -lns3-... (see run_ns3.sh)
// Run:   ./betared_dumbbell --aqm=droptail|red [--duration=250] [--schedule=betared|constant]
//                          [--flows=100] [--nMax=800] [--stop=quiet|close] [--run=1]
//                          [--progress=10] [--ns3::Class::Attribute=value ...]
// Output: one JSON line on stdout (--PrintHelp lists every option).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// Time-weighted integral of a packet count that changes through a TracedValue.
struct Occupancy
{
    double area = 0.0;     // packet-seconds since t = 0
    double lastT = 0.0;    // time of the last change, s
    uint32_t current = 0;  // packets now
    uint32_t maximum = 0;  // largest value seen

    void Change(uint32_t /*oldValue*/, uint32_t newValue)
    {
        double now = Simulator::Now().GetSeconds();
        area += current * (now - lastT);
        lastT = now;
        current = newValue;
        maximum = std::max(maximum, newValue);
    }

    // The integral up to time t (t >= lastT).
    double AreaAt(double t) const
    {
        return area + current * (t - lastT);
    }
};

Occupancy g_qdisc;            // packets in the bottleneck queue disc
Occupancy g_devQueue;         // packets in the bottleneck device's own 1-packet queue
uint64_t g_bottleneckTxBytes = 0; // bytes put on the bottleneck wire (PPP header included)
uint64_t g_bottleneckTxPkts = 0;
uint64_t g_bottleneckShortPkts = 0;  // packets shorter than a full data packet
uint64_t g_bottleneckShortBytes = 0;
uint32_t g_fullWireBytes = 1002;     // full data packet on the wire, set in main()

void
PhyTxBegin(Ptr<const Packet> p)
{
    g_bottleneckTxBytes += p->GetSize();
    g_bottleneckTxPkts++;
    if (p->GetSize() < g_fullWireBytes)
    {
        g_bottleneckShortPkts++;
        g_bottleneckShortBytes += p->GetSize();
    }
}

// A bulk sender like BulkSendApplication with MaxBytes 0 (it keeps the socket's send buffer
// full with 512-byte writes), except that stopping it only stops the writes: the socket is not
// closed, so what is already in the send buffer is still delivered and no FIN/RST exchange
// follows. Used with --stop=quiet; see docs/validation-ns3.md for why.
class QuietStopBulkSender : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("QuietStopBulkSender")
                                .SetParent<Application>()
                                .AddConstructor<QuietStopBulkSender>();
        return tid;
    }

    void SetPeer(Address peer)
    {
        m_peer = peer;
    }

    Ptr<Socket> GetSocket() const
    {
        return m_socket;
    }

  private:
    void StartApplication() override
    {
        m_writing = true;
        m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->ShutdownRecv();
        m_socket->SetConnectCallback(MakeCallback(&QuietStopBulkSender::Connected, this),
                                     MakeCallback(&QuietStopBulkSender::ConnectFailed, this));
        m_socket->SetSendCallback(MakeCallback(&QuietStopBulkSender::SpaceAvailable, this));
    }

    void StopApplication() override
    {
        m_writing = false;
    }

    void Connected(Ptr<Socket>)
    {
        m_connected = true;
        Fill();
    }

    void ConnectFailed(Ptr<Socket>)
    {
        m_connected = false;
    }

    void SpaceAvailable(Ptr<Socket>, uint32_t)
    {
        if (m_connected)
        {
            Fill();
        }
    }

    // Write until the send buffer refuses more.
    void Fill()
    {
        while (m_writing)
        {
            int sent = m_socket->Send(Create<Packet>(m_writeSize));
            if (sent != static_cast<int>(m_writeSize))
            {
                break;
            }
        }
    }

    Address m_peer;
    Ptr<Socket> m_socket;
    uint32_t m_writeSize = 512; // BulkSendApplication's default SendSize
    bool m_writing = false;
    bool m_connected = false;
};

NS_OBJECT_ENSURE_REGISTERED(QuietStopBulkSender);

// TCP sender events, summed over all flows: entries into fast recovery (CA_RECOVERY), entries
// into the loss state after a retransmission timeout (CA_LOSS), and RTO back-offs. ns-3 doubles
// the RTO at every expiry of the retransmission timer (RFC 6298 (5.5)), so an RTO change to
// exactly twice its old value counts one timeout (a back-off at the 60 s cap is not seen).
uint64_t g_recoveries = 0;
uint64_t g_lossEpisodes = 0;
uint64_t g_rtoBackoffs = 0;

void
CongStateChange(TcpSocketState::TcpCongState_t oldState, TcpSocketState::TcpCongState_t newState)
{
    if (newState == TcpSocketState::CA_RECOVERY && oldState != TcpSocketState::CA_RECOVERY)
    {
        g_recoveries++;
    }
    if (newState == TcpSocketState::CA_LOSS && oldState != TcpSocketState::CA_LOSS)
    {
        g_lossEpisodes++;
    }
}

void
RtoChange(Time oldRto, Time newRto)
{
    if (oldRto.IsStrictlyPositive() && newRto == oldRto + oldRto)
    {
        g_rtoBackoffs++;
    }
}

// Connections that end without the normal close handshake: the data retransmission limit
// (TcpSocket::DataRetries, 6 timeouts in a row) or the SYN limit (ConnCount, 6) was reached. ns-3
// then gives the connection up; the BulkSendApplication does not reconnect.
std::vector<double> g_abortTimes;

// Three-way handshakes: when each flow's connection was established (< 0: never).
std::vector<double> g_flowStart;
std::vector<double> g_flowEstablished;

void
StateChange(uint32_t flow, TcpSocket::TcpStates_t oldState, TcpSocket::TcpStates_t newState)
{
    if (newState == TcpSocket::CLOSED && oldState != TcpSocket::TIME_WAIT &&
        oldState != TcpSocket::LAST_ACK && oldState != TcpSocket::CLOSED)
    {
        g_abortTimes.push_back(Simulator::Now().GetSeconds());
    }
    if (newState == TcpSocket::ESTABLISHED && g_flowEstablished[flow] < 0)
    {
        g_flowEstablished[flow] = Simulator::Now().GetSeconds();
    }
}

// The BulkSendApplication creates its socket when it starts; hook the traces just after.
void
HookSocket(Ptr<Application> app, uint32_t flow)
{
    Ptr<Socket> socket;
    if (Ptr<BulkSendApplication> bulk = DynamicCast<BulkSendApplication>(app))
    {
        socket = bulk->GetSocket();
    }
    else if (Ptr<QuietStopBulkSender> quiet = DynamicCast<QuietStopBulkSender>(app))
    {
        socket = quiet->GetSocket();
    }
    if (socket)
    {
        socket->TraceConnectWithoutContext("CongState", MakeCallback(&CongStateChange));
        socket->TraceConnectWithoutContext("RTO", MakeCallback(&RtoChange));
        socket->TraceConnectWithoutContext("State", MakeBoundCallback(&StateChange, flow));
    }
}

// One snapshot of the cumulative counters, taken at each phase boundary.
struct Snapshot
{
    double t;
    double qdiscArea;
    double devArea;
    uint64_t rxBytes;       // PacketSink bytes so far
    uint32_t qdArrivals;    // queue disc: packets received
    uint32_t qdDrops;       // queue disc: packets dropped
    uint64_t txBytes;       // bottleneck wire bytes
};

std::vector<Snapshot> g_snapshots;
Ptr<QueueDisc> g_qd;
ApplicationContainer g_sinks;

uint64_t
SinkRxBytes()
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < g_sinks.GetN(); ++i)
    {
        total += DynamicCast<PacketSink>(g_sinks.Get(i))->GetTotalRx();
    }
    return total;
}

void
TakeSnapshot()
{
    double t = Simulator::Now().GetSeconds();
    QueueDisc::Stats st = g_qd->GetStats();
    g_snapshots.push_back(Snapshot{t,
                                   g_qdisc.AreaAt(t),
                                   g_devQueue.AreaAt(t),
                                   SinkRxBytes(),
                                   st.nTotalReceivedPackets,
                                   st.nTotalDroppedPackets,
                                   g_bottleneckTxBytes});
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
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    std::string aqm = "droptail";
    std::string schedule = "betared";
    double duration = 250.0;
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

    CommandLine cmd(__FILE__);
    cmd.AddValue("aqm", "droptail (FifoQueueDisc) or red (RedQueueDisc)", aqm);
    cmd.AddValue("schedule", "betared (scenario 2 steps) or constant", schedule);
    cmd.AddValue("duration", "simulated time, s", duration);
    cmd.AddValue("flows", "number of flows for --schedule=constant", flowsConstant);
    cmd.AddValue("nBase", "flows in phases 1 and 5", nBase);
    cmd.AddValue("nMid", "flows in phases 2 and 4", nMid);
    cmd.AddValue("nMax", "flows in phase 3", nMax);
    cmd.AddValue("phase", "phase length, s", phase);
    cmd.AddValue("startJitter", "uniform random start offset in [0, startJitter] s", startJitter);
    cmd.AddValue("segmentSize", "TCP SegmentSize, bytes", segmentSize);
    cmd.AddValue("buffer", "buffer of every router port, packets", bufferPkts);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("stop",
                 "how a flow stops: quiet (stop writing, keep the socket open) or close "
                 "(BulkSendApplication, which closes the socket)",
                 stopMode);
    cmd.AddValue("progress", "report progress on stderr every this many simulated s (0: off)",
                 progress);
    cmd.Parse(argc, argv);

    if (aqm != "droptail" && aqm != "red")
    {
        std::cerr << "unknown --aqm=" << aqm << " (droptail or red)\n";
        return 2;
    }
    if (stopMode != "quiet" && stopMode != "close")
    {
        std::cerr << "unknown --stop=" << stopMode << " (quiet or close)\n";
        return 2;
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    // --- flow plan: start and stop time of every flow -----------------------------------------
    struct Plan
    {
        double start;
        double stop; // < 0: runs to the end
    };

    std::vector<Plan> plans;
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    jitter->SetAttribute("Min", DoubleValue(0.0));
    jitter->SetAttribute("Max", DoubleValue(startJitter));
    if (schedule == "constant")
    {
        for (uint32_t i = 0; i < flowsConstant; ++i)
        {
            plans.push_back({jitter->GetValue(), -1.0});
        }
    }
    else if (schedule == "betared")
    {
        // N = nBase on [0, p), nMid on [p, 2p), nMax on [2p, 3p), nMid on [3p, 4p), nBase after.
        for (uint32_t i = 0; i < nBase; ++i)
        {
            plans.push_back({jitter->GetValue(), -1.0});
        }
        for (uint32_t i = nBase; i < nMid; ++i)
        {
            plans.push_back({phase + jitter->GetValue(), 4 * phase});
        }
        for (uint32_t i = nMid; i < nMax; ++i)
        {
            plans.push_back({2 * phase + jitter->GetValue(), 3 * phase});
        }
    }
    else
    {
        std::cerr << "unknown --schedule=" << schedule << " (betared or constant)\n";
        return 2;
    }
    uint32_t nFlows = plans.size();
    g_fullWireBytes = segmentSize + 32 + 20 + 2; // TCP with timestamps, IPv4, PPP
    g_flowEstablished.assign(nFlows, -1.0);
    for (const Plan& pl : plans)
    {
        g_flowStart.push_back(pl.start);
    }

    // --- TCP: ns-3.37 defaults except the segment size ----------------------------------------
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));

    // --- nodes and links ----------------------------------------------------------------------
    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(nFlows);
    NodeContainer sinks;
    sinks.Create(nFlows);

    std::string bufStr = std::to_string(bufferPkts) + "p";

    PointToPointHelper edge;
    edge.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    edge.SetChannelAttribute("Delay", StringValue("1ms"));
    edge.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(bufStr));

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("50Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("10ms"));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(bufStr));

    InternetStackHelper stack;
    stack.InstallAll();

    NetDeviceContainer allDevices;
    NetDeviceContainer bnDevices = bottleneck.Install(routers.Get(0), routers.Get(1));
    allDevices.Add(bnDevices);
    std::vector<NetDeviceContainer> leftDevs(nFlows);
    std::vector<NetDeviceContainer> rightDevs(nFlows);
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        leftDevs[i] = edge.Install(senders.Get(i), routers.Get(0));
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
    if (aqm == "droptail")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(bufStr)));
    }
    else
    {
        // Plain linear RED: p_a from 0 at MinTh to 1/LInterm at MaxTh, hard drop above MaxTh.
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(bufStr)),
                             "MinTh", DoubleValue(100),
                             "MaxTh", DoubleValue(400),
                             "QW", DoubleValue(0.002),
                             "LInterm", DoubleValue(10),
                             "MeanPktSize", UintegerValue(1000),
                             "Gentle", BooleanValue(false),
                             "Wait", BooleanValue(false),
                             "UseHardDrop", BooleanValue(true),
                             "UseEcn", BooleanValue(false),
                             "ARED", BooleanValue(false),
                             "AdaptMaxP", BooleanValue(false),
                             "FengAdaptive", BooleanValue(false),
                             "NLRED", BooleanValue(false),
                             "LinkBandwidth", DataRateValue(DataRate("50Mbps")),
                             "LinkDelay", TimeValue(MilliSeconds(10)));
    }
    QueueDiscContainer qdiscs = tch.Install(bnDev);
    g_qd = qdiscs.Get(0);

    g_qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Occupancy::Change, &g_qdisc));
    bnP2p->GetQueue()->TraceConnectWithoutContext("PacketsInQueue",
                                                  MakeCallback(&Occupancy::Change, &g_devQueue));
    bnP2p->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PhyTxBegin));

    auto routeStart = std::chrono::steady_clock::now();
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    double routeWall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - routeStart).count();

    // --- applications ---------------------------------------------------------------------------
    const uint16_t port = 9;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sinkHelper.Install(sinks.Get(i));
        s.Start(Seconds(0.0));
        g_sinks.Add(s);

        ApplicationContainer a;
        if (stopMode == "close")
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr[i], port));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            a = bulk.Install(senders.Get(i));
        }
        else
        {
            Ptr<QuietStopBulkSender> app = CreateObject<QuietStopBulkSender>();
            app->SetPeer(InetSocketAddress(sinkAddr[i], port));
            senders.Get(i)->AddApplication(app);
            a.Add(app);
        }
        a.Start(Seconds(plans[i].start));
        Simulator::Schedule(Seconds(plans[i].start) + NanoSeconds(1), &HookSocket, a.Get(0), i);
        if (plans[i].stop >= 0)
        {
            a.Stop(Seconds(plans[i].stop));
        }
    }

    FlowMonitorHelper fmHelper;
    NodeContainer hosts;
    hosts.Add(senders);
    hosts.Add(sinks);
    Ptr<FlowMonitor> monitor = fmHelper.Install(hosts);

    // Snapshots at the phase boundaries (and the end) for per-phase numbers.
    for (double t = phase; t < duration + 1e-9; t += phase)
    {
        Simulator::Schedule(Seconds(t), &TakeSnapshot);
    }
    if (std::fmod(duration, phase) > 1e-9)
    {
        Simulator::Schedule(Seconds(duration), &TakeSnapshot);
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
    QueueDisc::Stats st = g_qd->GetStats();
    double avgQdisc = g_qdisc.AreaAt(duration) / duration;
    double avgDev = g_devQueue.AreaAt(duration) / duration;
    double dropRate = st.nTotalReceivedPackets > 0
                          ? double(st.nTotalDroppedPackets) / st.nTotalReceivedPackets
                          : 0.0;
    double efficiency = g_bottleneckTxBytes * 8.0 / (50e6 * duration);
    uint64_t rxBytes = SinkRxBytes();
    double goodput = rxBytes * 8.0 / duration / 1e6;

    // FlowMonitor: data flows are those towards the sinks' port.
    Ptr<Ipv4FlowClassifier> classifier = DynamicCast<Ipv4FlowClassifier>(fmHelper.GetClassifier());
    double delaySum = 0.0;
    double jitterSum = 0.0;
    uint64_t rxPackets = 0;
    uint64_t jitterTerms = 0;
    uint64_t txPackets = 0;
    uint32_t dataFlows = 0;
    for (const auto& kv : monitor->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(kv.first);
        if (t.destinationPort != port)
        {
            continue;
        }
        dataFlows++;
        delaySum += kv.second.delaySum.GetSeconds();
        jitterSum += kv.second.jitterSum.GetSeconds();
        rxPackets += kv.second.rxPackets;
        txPackets += kv.second.txPackets;
        if (kv.second.rxPackets > 1)
        {
            jitterTerms += kv.second.rxPackets - 1;
        }
    }

    // Handshake delays; a flow that never connected before its stop (or the end) counts apart.
    uint32_t established = 0;
    uint32_t notConnectedBeforeStop = 0;
    double connectSum = 0.0;
    double connectMax = 0.0;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        double end = plans[i].stop >= 0 ? plans[i].stop : duration;
        if (g_flowEstablished[i] >= 0)
        {
            established++;
            double d = g_flowEstablished[i] - g_flowStart[i];
            connectSum += d;
            connectMax = std::max(connectMax, d);
        }
        if (g_flowEstablished[i] < 0 || g_flowEstablished[i] >= end)
        {
            notConnectedBeforeStop++;
        }
    }

    std::ostringstream js;
    js << "{\"simulator\":\"ns-3.37\",\"aqm\":\"" << aqm << "\",\"schedule\":\"" << schedule
       << "\",\"flows\":" << nFlows << ",\"duration_s\":" << Json(duration)
       << ",\"stop\":\"" << stopMode << "\",\"segment_size\":" << segmentSize
       << ",\"seed\":" << seed << ",\"run\":" << run
       << ",\"avg_queue_pkts\":" << Json(avgQdisc)
       << ",\"avg_queue_incl_device_pkts\":" << Json(avgQdisc + avgDev)
       << ",\"max_queue_pkts\":" << g_qdisc.maximum << ",\"drop_rate\":" << Json(dropRate)
       << ",\"link_efficiency\":" << Json(efficiency) << ",\"throughput_mbps\":" << Json(goodput)
       << ",\"delay_mean_ms\":" << Json(rxPackets ? 1e3 * delaySum / rxPackets : 0.0)
       << ",\"jitter_ms\":" << Json(jitterTerms ? 1e3 * jitterSum / jitterTerms : 0.0)
       << ",\"qdisc_received\":" << st.nTotalReceivedPackets
       << ",\"qdisc_dropped\":" << st.nTotalDroppedPackets
       << ",\"qdisc_sent\":" << st.nTotalSentPackets
       << ",\"qdisc_sent_bytes\":" << st.nTotalSentBytes << ",\"qdisc_drop_reasons\":{";
    bool first = true;
    for (const auto& kv : st.nDroppedPacketsBeforeEnqueue)
    {
        js << (first ? "" : ",") << "\"" << kv.first << "\":" << kv.second;
        first = false;
    }
    for (const auto& kv : st.nDroppedPacketsAfterDequeue)
    {
        js << (first ? "" : ",") << "\"" << kv.first << " (after dequeue)\":" << kv.second;
        first = false;
    }
    js << "},\"bottleneck_tx_pkts\":" << g_bottleneckTxPkts
       << ",\"bottleneck_tx_bytes\":" << g_bottleneckTxBytes
       << ",\"bottleneck_short_pkts\":" << g_bottleneckShortPkts
       << ",\"bottleneck_short_bytes\":" << g_bottleneckShortBytes
       << ",\"sink_rx_bytes\":" << rxBytes
       << ",\"fm_data_flows\":" << dataFlows << ",\"fm_tx_packets\":" << txPackets
       << ",\"fm_rx_packets\":" << rxPackets << ",\"tcp_fast_recoveries\":" << g_recoveries
       << ",\"tcp_timeout_episodes\":" << g_lossEpisodes
       << ",\"tcp_rto_backoffs\":" << g_rtoBackoffs
       << ",\"tcp_aborted_connections\":" << g_abortTimes.size()
       << ",\"connections_established\":" << established
       << ",\"connect_delay_mean_s\":" << Json(established ? connectSum / established : 0.0)
       << ",\"connect_delay_max_s\":" << Json(connectMax)
       << ",\"flows_not_connected_before_stop\":" << notConnectedBeforeStop << ",\"phases\":[";
    Snapshot prev{0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < g_snapshots.size(); ++i)
    {
        const Snapshot& s = g_snapshots[i];
        double len = s.t - prev.t;
        uint32_t arr = s.qdArrivals - prev.qdArrivals;
        js << (i ? "," : "") << "{\"t0\":" << Json(prev.t) << ",\"t1\":" << Json(s.t)
           << ",\"avg_queue_pkts\":" << Json((s.qdiscArea - prev.qdiscArea) / len)
           << ",\"drop_rate\":" << Json(arr ? double(s.qdDrops - prev.qdDrops) / arr : 0.0)
           << ",\"link_efficiency\":" << Json((s.txBytes - prev.txBytes) * 8.0 / (50e6 * len))
           << ",\"throughput_mbps\":" << Json((s.rxBytes - prev.rxBytes) * 8.0 / len / 1e6)
           << ",\"tcp_aborted_connections\":"
           << std::count_if(g_abortTimes.begin(),
                            g_abortTimes.end(),
                            [&](double t) { return t >= prev.t && t < s.t; })
           << "}";
        prev = s;
    }
    js << "],\"wall_setup_s\":" << Json(setupWall) << ",\"wall_routing_s\":" << Json(routeWall)
       << ",\"wall_run_s\":" << Json(simWall) << "}";
    std::cout << js.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
