// Measurement probes and the bulk sender of betared_dumbbell.cc: the bottleneck queue integrated
// exactly over time, the bottleneck's arrivals, drops and busy time, the one-way delay of every
// data packet from its sender's wire to its receiver, TCP sender events, and a bulk sender that
// stops without closing its socket. Counters are cumulative; a Snapshot taken at the start of
// the measurement window and one at its end give the window's figures.

#ifndef AQMLAB_BENCH_NS3_DUMBBELL_PROBES_H
#define AQMLAB_BENCH_NS3_DUMBBELL_PROBES_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace probes
{

using namespace ns3;

// Packets waiting at the bottleneck port: the queue disc's backlog plus the packet parked in the
// device's 1-packet queue (the one being serialised is in neither). The backlog is the root
// queue disc's PacketsInQueue, which for a flow-queueing disc counts the packets of all its
// flow queues (the children report every enqueue and dequeue to it). Integrated exactly at every
// change of either, as the mean and mean square over time.
struct QueueIntegral
{
    double area = 0.0;       // packet-seconds of (queue disc + device queue)
    double area2 = 0.0;      // packet²-seconds of the same
    double qdiscArea = 0.0;  // packet-seconds of the queue disc alone
    double lastT = 0.0;      // time of the last change, s
    uint32_t qdisc = 0;      // packets in the queue disc now
    uint32_t device = 0;     // packets in the device queue now
    uint32_t maximum = 0;    // largest total seen

    void Advance(double now)
    {
        double q = qdisc + device;
        double dt = now - lastT;
        area += q * dt;
        area2 += q * q * dt;
        qdiscArea += qdisc * dt;
        lastT = now;
    }

    void QdiscChange(uint32_t /*oldValue*/, uint32_t newValue)
    {
        Advance(Simulator::Now().GetSeconds());
        qdisc = newValue;
        maximum = std::max(maximum, qdisc + device);
    }

    void DeviceChange(uint32_t /*oldValue*/, uint32_t newValue)
    {
        Advance(Simulator::Now().GetSeconds());
        device = newValue;
        maximum = std::max(maximum, qdisc + device);
    }
};

QueueIntegral g_queue;

// Bottleneck wire: packets and bytes (PPP header included) whose transmission started.
uint64_t g_bottleneckTxBytes = 0;
uint64_t g_bottleneckTxPkts = 0;

void
BottleneckTx(Ptr<const Packet> p)
{
    g_bottleneckTxBytes += p->GetSize();
    g_bottleneckTxPkts++;
}

// One-way delay of data packets. A packet the sender puts on its wire that is longer than PPP +
// IPv4 + the longest TCP header (2 + 20 + 60 bytes) carries data; it gets a tag with the time,
// which the copies made on the way keep, and its receiver's device reads the tag when the packet
// has arrived. (Packet uids are no key here: the segments TCP cuts from one buffer share one.)
// Jitter: |d_i − d_(i−1)| over consecutive data packets of one flow.
const uint32_t kMaxHeaderWireBytes = 2 + 20 + 60;

class SentAtTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("SentAtTag").SetParent<Tag>().AddConstructor<SentAtTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 8;
    }

    void Serialize(TagBuffer buf) const override
    {
        buf.WriteDouble(sentAt);
    }

    void Deserialize(TagBuffer buf) override
    {
        sentAt = buf.ReadDouble();
    }

    void Print(std::ostream& os) const override
    {
        os << "sentAt=" << sentAt;
    }

    double sentAt = 0.0; // s
};

NS_OBJECT_ENSURE_REGISTERED(SentAtTag);

std::vector<double> g_lastDelay; // per flow, s (< 0: no packet yet)
double g_delaySum = 0.0;         // s
uint64_t g_delayCount = 0;       // data packets received
double g_jitterSum = 0.0;        // s
uint64_t g_jitterTerms = 0;
uint64_t g_dataSent = 0;         // data packets put on the senders' wires

void
SenderTx(Ptr<const Packet> p)
{
    if (p->GetSize() > kMaxHeaderWireBytes)
    {
        SentAtTag tag;
        tag.sentAt = Simulator::Now().GetSeconds();
        p->AddPacketTag(tag);
        g_dataSent++;
    }
}

void
ReceiverRx(uint32_t flow, Ptr<const Packet> p)
{
    SentAtTag tag;
    if (!p->PeekPacketTag(tag))
    {
        return;
    }
    double d = Simulator::Now().GetSeconds() - tag.sentAt;
    g_delaySum += d;
    g_delayCount++;
    if (g_lastDelay[flow] >= 0)
    {
        g_jitterSum += std::fabs(d - g_lastDelay[flow]);
        g_jitterTerms++;
    }
    g_lastDelay[flow] = d;
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

// A constant-bit-rate UDP sender, as aqmlab's CBR source (ns-2's Application/Traffic/CBR): its
// first packet when it starts, then one every interval until it stops or the run ends. The
// packet carries `payload` bytes (its IP packet 28 more). ns-3's UdpClient would do the same,
// but its class layout depends on NS3_LOG_ENABLE, which Debian's library is built with and
// this program is not.
class CbrSender : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("CbrSender").SetParent<Application>().AddConstructor<CbrSender>();
        return tid;
    }

    void Configure(Address peer, uint32_t payload, Time interval)
    {
        m_peer = peer;
        m_payload = payload;
        m_interval = interval;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_socket->Bind();
        m_socket->Connect(m_peer);
        Send();
    }

    void StopApplication() override
    {
        Simulator::Cancel(m_next);
    }

    void DoDispose() override
    {
        Simulator::Cancel(m_next);
        m_socket = nullptr;
        Application::DoDispose();
    }

    void Send()
    {
        m_socket->Send(Create<Packet>(m_payload));
        m_next = Simulator::Schedule(m_interval, &CbrSender::Send, this);
    }

    Address m_peer;
    uint32_t m_payload = 0;
    Time m_interval;
    Ptr<Socket> m_socket;
    EventId m_next;
};

NS_OBJECT_ENSURE_REGISTERED(CbrSender);

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
// (TcpSocket::DataRetries, 6 timeouts in a row) or the SYN limit (ConnCount, 6) was reached.
// ns-3 then gives the connection up; the senders do not reconnect.
std::vector<double> g_abortTimes;

// Three-way handshakes: when each flow's connection was established (< 0: never).
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

// The sender creates its socket when it starts; hook the traces just after.
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

// The receiving applications, one per flow (TCP flows first, then UDP flows), and how aqmlab
// counts what they receive: a TCP flow's in-order payload, a UDP flow's whole packets (IP and
// UDP headers included), which a PacketSink counts without the 28 header bytes.
struct Flows
{
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<bool> udp;
    uint32_t udpPayloadBytes = 0;
    uint32_t udpHeaderBytes = 0;

    uint64_t Delivered(size_t i) const
    {
        uint64_t rx = sinks[i]->GetTotalRx();
        if (!udp[i] || udpPayloadBytes == 0)
        {
            return rx;
        }
        return rx + rx / udpPayloadBytes * udpHeaderBytes;
    }
};

Flows g_flows;

// The cumulative counters at one moment. The queue disc's statistics are the root's: a
// flow-queueing disc's children report their enqueues, dequeues, drops and marks to it, so
// they cover every flow queue.
struct Snapshot
{
    double t = 0.0;
    double area = 0.0;
    double area2 = 0.0;
    double qdiscArea = 0.0;
    uint64_t rxBytes = 0;    // delivered to the sink applications, as aqmlab counts it
    uint64_t tcpRxBytes = 0; // of that, by TCP flows
    uint64_t udpRxBytes = 0; // and by UDP flows
    std::vector<uint64_t> flowRx; // per flow
    uint64_t arrivals = 0;   // queue disc: packets received
    uint64_t drops = 0;      // queue disc: packets dropped
    uint64_t marks = 0;      // queue disc: packets marked CE
    uint64_t departures = 0; // queue disc: packets sent on to the device
    uint64_t txBytes = 0;    // bottleneck wire bytes
    uint64_t txPkts = 0;
    double delaySum = 0.0;
    uint64_t delayCount = 0;
    double jitterSum = 0.0;
    uint64_t jitterTerms = 0;
    uint64_t dataSent = 0;
    uint64_t aborts = 0;
};

Snapshot
Take(double t, Ptr<QueueDisc> qd)
{
    Snapshot s;
    s.t = t;
    QueueIntegral q = g_queue;
    q.Advance(t);
    s.area = q.area;
    s.area2 = q.area2;
    s.qdiscArea = q.qdiscArea;
    s.flowRx.resize(g_flows.sinks.size());
    for (size_t i = 0; i < g_flows.sinks.size(); ++i)
    {
        uint64_t rx = g_flows.Delivered(i);
        s.flowRx[i] = rx;
        s.rxBytes += rx;
        (g_flows.udp[i] ? s.udpRxBytes : s.tcpRxBytes) += rx;
    }
    QueueDisc::Stats st = qd->GetStats();
    s.arrivals = st.nTotalReceivedPackets;
    s.drops = st.nTotalDroppedPackets;
    s.marks = st.nTotalMarkedPackets;
    s.departures = st.nTotalSentPackets;
    s.txBytes = g_bottleneckTxBytes;
    s.txPkts = g_bottleneckTxPkts;
    s.delaySum = g_delaySum;
    s.delayCount = g_delayCount;
    s.jitterSum = g_jitterSum;
    s.jitterTerms = g_jitterTerms;
    s.dataSent = g_dataSent;
    s.aborts = g_abortTimes.size();
    return s;
}

} // namespace probes

#endif
