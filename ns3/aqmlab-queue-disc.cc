// AqmlabQueueDisc: see aqmlab-queue-disc.h and docs/ns3.md.

#include "aqmlab-queue-disc.h"

#include "aqmlab.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AqmlabQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(AqmlabQueueDisc);

namespace
{

// Simulation time in integer nanoseconds, the AQM's clock.
uint64_t
NowNs()
{
    return static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
}

// Whether the packet's sender uses ECN: ECT(0), ECT(1) or CE in the IP header's ECN field.
bool
IsEct(Ptr<const QueueDiscItem> item)
{
    uint8_t ds = 0;
    return item->GetUint8Value(QueueItem::IP_DSFIELD, ds) && (ds & 0x3) != 0;
}

// A user's mistake: aqmlab's one-line message, exit status 2, no crash.
[[noreturn]] void
Refuse(const std::string& message)
{
    std::cerr << "AqmlabQueueDisc: " << message << std::endl;
    std::exit(2);
}

} // namespace

TypeId
AqmlabQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AqmlabQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<AqmlabQueueDisc>()
            .AddAttribute("Aqm",
                          "The aqmlab AQM, by its name in aqmlab's scenario format (red, ared, "
                          "betared, abetared, dbetared, codel, pie, rem, pi, ...)",
                          StringValue("red"),
                          MakeStringAccessor(&AqmlabQueueDisc::m_aqmName),
                          MakeStringChecker())
            .AddAttribute("Params",
                          "The AQM's parameters as key=value pairs separated by spaces, commas "
                          "or semicolons (the keys of aqmlab's [queue.<aqm>] table); empty for "
                          "its defaults",
                          StringValue(""),
                          MakeStringAccessor(&AqmlabQueueDisc::m_params),
                          MakeStringChecker())
            .AddAttribute("MaxSize",
                          "The buffer, in packets",
                          QueueSizeValue(QueueSize("1000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("LinkBandwidth",
                          "The rate of the link the queue feeds; 0 takes the device's DataRate",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&AqmlabQueueDisc::m_linkBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("UseEcn",
                          "Mark ECN-capable packets CE instead of dropping them on the AQM's "
                          "early signals",
                          BooleanValue(false),
                          MakeBooleanAccessor(&AqmlabQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("Seed",
                          "The AQM's random stream (aqmlab's stream of a simulated queue's AQM "
                          "with this seed)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&AqmlabQueueDisc::m_seed),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("QueueAverage",
                            "The AQM's averaged queue q_avg, packets (AQMs that keep one)",
                            MakeTraceSourceAccessor(&AqmlabQueueDisc::m_qAvg),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Probability",
                            "The AQM's drop probability p (AQMs that keep one)",
                            MakeTraceSourceAccessor(&AqmlabQueueDisc::m_p),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

AqmlabQueueDisc::AqmlabQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE, QueueSizeUnit::PACKETS),
      m_useEcn(false),
      m_seed(1),
      m_aqm(nullptr),
      m_qAvgIndex(-1),
      m_pIndex(-1),
      m_qAvg(0.0),
      m_p(0.0),
      m_timerAtNs(0),
      m_departuresAtWire(false),
      m_onDeviceBytes(0)
{
    NS_LOG_FUNCTION(this);
}

AqmlabQueueDisc::~AqmlabQueueDisc()
{
    NS_LOG_FUNCTION(this);
    aqmlab_aqm_free(m_aqm);
}

void
AqmlabQueueDisc::DoDispose()
{
    m_timer.Cancel();
    aqmlab_aqm_free(m_aqm);
    m_aqm = nullptr;
    QueueDisc::DoDispose();
}

std::vector<std::string>
AqmlabQueueDisc::GetProbeNames() const
{
    std::vector<std::string> names;
    for (size_t i = 0; i < aqmlab_aqm_probe_count(m_aqm); ++i)
    {
        names.emplace_back(aqmlab_aqm_probe_name(m_aqm, i));
    }
    return names;
}

std::vector<double>
AqmlabQueueDisc::GetProbes() const
{
    return m_probes;
}

double
AqmlabQueueDisc::LinkRateBps() const
{
    if (m_linkBandwidth.GetBitRate() > 0)
    {
        return static_cast<double>(m_linkBandwidth.GetBitRate());
    }
    Ptr<NetDeviceQueueInterface> ndqi = GetNetDeviceQueueInterface();
    Ptr<NetDevice> device = ndqi ? ndqi->GetObject<NetDevice>() : nullptr;
    DataRateValue rate;
    if (!device || !device->GetAttributeFailSafe("DataRate", rate) ||
        rate.Get().GetBitRate() == 0)
    {
        Refuse("LinkBandwidth: must be set (a rate > 0): the device has no DataRate attribute");
    }
    return static_cast<double>(rate.Get().GetBitRate());
}

bool
AqmlabQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("AqmlabQueueDisc has no classes and no packet filters");
        return false;
    }
    if (GetMaxSize().GetUnit() != QueueSizeUnit::PACKETS || GetMaxSize().GetValue() == 0)
    {
        Refuse("MaxSize: must be a number of packets >= 1 (such as 1000p)");
    }
    char error[512] = {0};
    m_aqm = aqmlab_aqm_new(m_aqmName.c_str(),
                           m_params.c_str(),
                           GetMaxSize().GetValue(),
                           LinkRateBps(),
                           m_seed,
                           error,
                           sizeof error);
    if (m_aqm == nullptr)
    {
        Refuse(error);
    }
    for (size_t i = 0; i < aqmlab_aqm_probe_count(m_aqm); ++i)
    {
        std::string name = aqmlab_aqm_probe_name(m_aqm, i);
        if (name == "q_avg")
        {
            m_qAvgIndex = static_cast<int>(i);
        }
        else if (name == "p")
        {
            m_pIndex = static_cast<int>(i);
        }
    }
    m_probes.assign(aqmlab_aqm_probe_count(m_aqm), 0.0);
    if (GetNInternalQueues() == 0)
    {
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize",
            QueueSizeValue(GetMaxSize())));
    }
    return GetNInternalQueues() == 1;
}

void
AqmlabQueueDisc::InitializeParams()
{
    // An AQM that never decides at dequeue only observes departures: it sees each one when the
    // packet starts onto the wire, where the device reports it, as aqmlab's simulator and ns-2
    // show departures (RED starts its idle period there). The queue disc itself hands packets
    // to the device's transmit queue about a packet time earlier.
    Ptr<NetDeviceQueueInterface> ndqi = GetNetDeviceQueueInterface();
    Ptr<NetDevice> device = ndqi ? ndqi->GetObject<NetDevice>() : nullptr;
    m_departuresAtWire =
        aqmlab_aqm_decides_at_dequeue(m_aqm) == 0 && device &&
        device->TraceConnectWithoutContext("PhyTxBegin",
                                           MakeCallback(&AqmlabQueueDisc::OnWireStart, this));
    AfterCall(AQMLAB_OK);
}

void
AqmlabQueueDisc::OnWireStart(Ptr<const Packet> packet)
{
    uint64_t uid = packet->GetUid();
    auto it = m_onDevice.begin();
    while (it != m_onDevice.end() && it->uid != uid)
    {
        ++it;
    }
    if (it == m_onDevice.end())
    {
        return; // not a packet of this queue disc
    }
    OnDevice departing = *it;
    // Packets handed over before it and never sent (lost in the device) leave the record.
    for (auto gone = m_onDevice.begin(); gone != it + 1; ++gone)
    {
        m_onDeviceBytes -= gone->sizeBytes;
    }
    m_onDevice.erase(m_onDevice.begin(), it + 1);
    Ptr<QueueDisc::InternalQueue> queue = GetInternalQueue(0);
    uint64_t now = NowNs();
    uint64_t waitingPkts = queue->GetNPackets() + m_onDevice.size();
    uint32_t limit = GetMaxSize().GetValue();
    uint32_t queuePkts = waitingPkts > limit ? limit : static_cast<uint32_t>(waitingPkts);
    uint64_t queueBytes = queue->GetNBytes() + m_onDeviceBytes;
    AfterCall(aqmlab_aqm_dequeue(m_aqm,
                                 now,
                                 now - departing.joinedNs,
                                 departing.sizeBytes,
                                 departing.ect,
                                 queuePkts,
                                 queueBytes < queuePkts ? queuePkts : queueBytes));
}

void
AqmlabQueueDisc::AfterCall(int32_t status)
{
    if (status < 0)
    {
        NS_FATAL_ERROR("aqmlab " << aqmlab_aqm_name(m_aqm) << ": " << aqmlab_aqm_error(m_aqm));
    }
    aqmlab_aqm_probe(m_aqm, m_probes.data(), m_probes.size());
    if (m_qAvgIndex >= 0)
    {
        m_qAvg = m_probes[m_qAvgIndex];
    }
    if (m_pIndex >= 0)
    {
        m_p = m_probes[m_pIndex];
    }
    uint64_t at = 0;
    if (aqmlab_aqm_next_timer(m_aqm, &at) != 1)
    {
        m_timer.Cancel();
        return;
    }
    uint64_t now = NowNs();
    at = at < now ? now : at;
    if (m_timer.IsRunning() && m_timerAtNs == at)
    {
        return;
    }
    m_timer.Cancel();
    m_timerAtNs = at;
    m_timer = Simulator::Schedule(NanoSeconds(at - now), &AqmlabQueueDisc::OnTimer, this);
}

void
AqmlabQueueDisc::OnTimer()
{
    Ptr<QueueDisc::InternalQueue> queue = GetInternalQueue(0);
    AfterCall(aqmlab_aqm_timer(m_aqm, NowNs(), queue->GetNPackets(), queue->GetNBytes()));
}

bool
AqmlabQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    Ptr<QueueDisc::InternalQueue> queue = GetInternalQueue(0);
    uint64_t now = NowNs();
    bool ect = IsEct(item);
    int32_t verdict = aqmlab_aqm_enqueue(m_aqm,
                                         now,
                                         item->GetSize(),
                                         ect,
                                         queue->GetNPackets(),
                                         queue->GetNBytes());
    AfterCall(verdict);
    if (verdict == AQMLAB_FORCED_DROP)
    {
        DropBeforeEnqueue(item, FORCED_DROP);
        return false;
    }
    if (verdict == AQMLAB_EARLY_DROP && !(m_useEcn && ect && Mark(item, UNFORCED_MARK)))
    {
        DropBeforeEnqueue(item, UNFORCED_DROP);
        return false;
    }
    if (GetCurrentSize() + item > GetMaxSize())
    {
        DropBeforeEnqueue(item, OVERFLOW_DROP);
        AfterCall(aqmlab_aqm_overflow(m_aqm, now));
        return false;
    }
    return queue->Enqueue(item);
}

Ptr<QueueDiscItem>
AqmlabQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    Ptr<QueueDisc::InternalQueue> queue = GetInternalQueue(0);
    while (true)
    {
        Ptr<QueueDiscItem> item = queue->Dequeue();
        uint64_t now = NowNs();
        if (!item)
        {
            AfterCall(aqmlab_aqm_empty(m_aqm, now));
            return nullptr;
        }
        uint64_t joined = static_cast<uint64_t>(item->GetTimeStamp().GetNanoSeconds());
        bool ect = IsEct(item);
        if (m_departuresAtWire)
        {
            m_onDevice.push_back({item->GetPacket()->GetUid(), joined, item->GetSize(), ect});
            m_onDeviceBytes += item->GetSize();
            return item;
        }
        int32_t verdict = aqmlab_aqm_dequeue(m_aqm,
                                             now,
                                             now - joined,
                                             item->GetSize(),
                                             ect,
                                             queue->GetNPackets(),
                                             queue->GetNBytes());
        AfterCall(verdict);
        switch (verdict)
        {
        case AQMLAB_MARK:
            if (m_useEcn && ect)
            {
                Mark(item, CE_MARK);
            }
            return item;
        case AQMLAB_EARLY_DROP:
            if (m_useEcn && ect && Mark(item, UNFORCED_MARK))
            {
                return item;
            }
            DropAfterDequeue(item, UNFORCED_DROP);
            break;
        case AQMLAB_FORCED_DROP:
            DropAfterDequeue(item, FORCED_DROP);
            break;
        default:
            return item;
        }
    }
}

} // namespace ns3
