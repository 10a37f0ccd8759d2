// aqmlab-dumbbell: TCP flows through one bottleneck whose queue disc is any single-queue aqmlab
// AQM (AqmlabQueueDisc), in ns-3.37. Prints one JSON line: the AQM's goodput, queue, drops and
// marks, and the state values it keeps. docs/ns3.md walks through it.
//
//   aqmlab-dumbbell --aqm=betared --params="theta=0.5" --flows=10 --duration=20
//
// Senders and receivers sit behind 100 Mb/s, 1 ms access links on each side of the bottleneck
// (--rate, --delay); the bottleneck device keeps a one-packet transmit queue so that the
// packets wait in the queue disc. Flows start at random times in the first second.

#include "../aqmlab-queue-disc.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-layout-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

// Sums of the queue disc's packets and state values, sampled every 10 ms.
struct Samples
{
    Ptr<QueueDisc> disc;
    double queuePkts = 0;
    double probes[16] = {0};
    uint32_t count = 0;
};

void
Sample(Samples* s)
{
    s->queuePkts += s->disc->GetNPackets();
    std::vector<double> probes = DynamicCast<AqmlabQueueDisc>(s->disc)->GetProbes();
    for (size_t i = 0; i < probes.size() && i < 16; ++i)
    {
        s->probes[i] += probes[i];
    }
    s->count++;
    Simulator::Schedule(MilliSeconds(10), &Sample, s);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string aqm = "red";
    std::string params;
    uint32_t flows = 10;
    double durationS = 20;
    std::string rate = "10Mbps";
    std::string delay = "20ms";
    uint32_t bufferPkts = 100;
    bool ecn = false;
    uint64_t seed = 1;
    std::string tcp = "ns3::TcpCubic";

    CommandLine cmd(__FILE__);
    cmd.AddValue("aqm", "aqmlab AQM (AqmlabQueueDisc's Aqm)", aqm);
    cmd.AddValue("params", "its parameters, key=value pairs (AqmlabQueueDisc's Params)", params);
    cmd.AddValue("flows", "TCP flows", flows);
    cmd.AddValue("duration", "simulated time, s", durationS);
    cmd.AddValue("rate", "bottleneck rate", rate);
    cmd.AddValue("delay", "bottleneck one-way delay", delay);
    cmd.AddValue("buffer", "queue disc buffer, packets", bufferPkts);
    cmd.AddValue("ecn", "ECN-capable senders, and marks instead of early drops", ecn);
    cmd.AddValue("seed", "AQM random stream and ns-3 run number", seed);
    cmd.AddValue("tcp", "TCP congestion control TypeId", tcp);
    cmd.Parse(argc, argv);
    if (flows == 0 || durationS <= 1 || bufferPkts == 0)
    {
        std::cerr << "aqmlab-dumbbell: --flows and --buffer must be >= 1 and --duration > 1 s"
                  << std::endl;
        return 2;
    }

    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(tcp));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 22));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 22));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(ecn ? "On" : "Off"));

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(rate));
    bottleneck.SetChannelAttribute("Delay", StringValue(delay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointDumbbellHelper dumbbell(flows, access, flows, access, bottleneck);

    InternetStackHelper stack;
    dumbbell.InstallStack(stack);

    // The AQM goes on the left router's bottleneck device (its first device), before the
    // addresses are assigned: assigning them installs ns-3's default FqCoDel on devices that
    // have no queue disc yet.
    std::ostringstream maxSize;
    maxSize << bufferPkts << "p";
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::AqmlabQueueDisc",
                         "Aqm",
                         StringValue(aqm),
                         "Params",
                         StringValue(params),
                         "MaxSize",
                         StringValue(maxSize.str()),
                         "UseEcn",
                         BooleanValue(ecn),
                         "Seed",
                         UintegerValue(seed));
    QueueDiscContainer discs = tch.Install(dumbbell.GetLeft()->GetDevice(0));

    dumbbell.AssignIpv4Addresses(Ipv4AddressHelper("10.1.1.0", "255.255.255.0"),
                                 Ipv4AddressHelper("10.2.1.0", "255.255.255.0"),
                                 Ipv4AddressHelper("10.3.1.0", "255.255.255.0"));
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    ApplicationContainer sinks;
    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < flows; ++i)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        sinks.Add(sink.Install(dumbbell.GetRight(i)));
        BulkSendHelper source("ns3::TcpSocketFactory",
                              InetSocketAddress(dumbbell.GetRightIpv4Address(i), port));
        ApplicationContainer app = source.Install(dumbbell.GetLeft(i));
        app.Start(Seconds(start->GetValue(0.0, 1.0)));
    }
    sinks.Start(Seconds(0));

    Samples samples;
    samples.disc = discs.Get(0);
    Simulator::Schedule(Seconds(1), &Sample, &samples);
    Simulator::Stop(Seconds(durationS));
    Simulator::Run();

    uint64_t receivedBytes = 0;
    for (uint32_t i = 0; i < sinks.GetN(); ++i)
    {
        receivedBytes += DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
    }
    Ptr<AqmlabQueueDisc> disc = DynamicCast<AqmlabQueueDisc>(samples.disc);
    const QueueDisc::Stats& stats = disc->GetStats();
    std::ostringstream out;
    out.precision(6);
    out << "{\"aqm\":\"" << aqm << "\",\"flows\":" << flows << ",\"duration_s\":" << durationS
        << ",\"goodput_mbps\":" << receivedBytes * 8.0 / durationS / 1e6
        << ",\"mean_queue_pkts\":" << samples.queuePkts / samples.count
        << ",\"unforced_drops\":" << stats.GetNDroppedPackets(AqmlabQueueDisc::UNFORCED_DROP)
        << ",\"forced_drops\":" << stats.GetNDroppedPackets(AqmlabQueueDisc::FORCED_DROP)
        << ",\"overflow_drops\":" << stats.GetNDroppedPackets(AqmlabQueueDisc::OVERFLOW_DROP)
        << ",\"marks\":"
        << stats.GetNMarkedPackets(AqmlabQueueDisc::UNFORCED_MARK) +
               stats.GetNMarkedPackets(AqmlabQueueDisc::CE_MARK);
    std::vector<std::string> names = disc->GetProbeNames();
    for (size_t i = 0; i < names.size() && i < 16; ++i)
    {
        out << ",\"mean_" << names[i] << "\":" << samples.probes[i] / samples.count;
    }
    out << "}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
