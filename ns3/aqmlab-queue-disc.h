// AqmlabQueueDisc: any single-queue aqmlab AQM as an ns-3 (3.37) queue disc, through aqmlab's C
// ABI (crates/capi, header aqmlab.h, library libaqmlab). The AQM decides; this queue disc holds
// the packets in one FIFO internal queue, marks or drops as the AQM says, and runs the AQM's
// timer as ns-3 events. docs/ns3.md shows how to build, link and use it.
//
// Attributes: Aqm (the AQM's name, as aqmlab's scenario format writes it), Params (its
// parameters as key=value text, the keys and ranges of `[queue.<aqm>]`), MaxSize (packets),
// LinkBandwidth (0: the device's DataRate), UseEcn, Seed (the AQM's random stream).
// Trace sources: QueueAverage (the AQM's q_avg, packets) and Probability (its p), for the AQMs
// that keep them. A bad name or parameter stops the program with aqmlab's one-line message
// and exit status 2.

#ifndef AQMLAB_QUEUE_DISC_H
#define AQMLAB_QUEUE_DISC_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/packet.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

struct AqmlabAqm;

namespace ns3
{

class AqmlabQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    AqmlabQueueDisc();
    ~AqmlabQueueDisc() override;

    // Drop and mark reasons, as QueueDisc::Stats counts them.
    static constexpr const char* UNFORCED_DROP = "Unforced drop"; // the AQM's early drop
    static constexpr const char* FORCED_DROP = "Forced drop";     // the AQM's forced drop
    static constexpr const char* UNFORCED_MARK = "Unforced mark"; // an early drop as a CE mark
    static constexpr const char* CE_MARK = "CE mark";             // the AQM's mark at dequeue
    static constexpr const char* OVERFLOW_DROP = "Overflow drop"; // buffer full

    // The names of the AQM's state values (q_avg, p, ...) and their values now.
    std::vector<std::string> GetProbeNames() const;
    std::vector<double> GetProbes() const;

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    // The link rate in bit/s: the LinkBandwidth attribute, else the device's DataRate.
    double LinkRateBps() const;
    // After each call to the AQM: a failed call stops the program; the traced values follow
    // the AQM's state, and the timer event its next timer.
    void AfterCall(int32_t status);
    void OnTimer();
    // The device's PhyTxBegin: a packet of this queue disc starts onto the wire.
    void OnWireStart(Ptr<const Packet> packet);

    // A packet handed to the device and not yet on the wire, for AQMs that only observe
    // departures: they see each departure when its packet starts onto the wire, as in
    // aqmlab's simulator, with the packets still waiting in the device counted in the queue.
    struct OnDevice
    {
        uint64_t uid;
        uint64_t joinedNs;
        uint32_t sizeBytes;
        bool ect;
    };

    std::string m_aqmName;
    std::string m_params;
    DataRate m_linkBandwidth;
    bool m_useEcn;
    uint64_t m_seed;

    AqmlabAqm* m_aqm;
    int m_qAvgIndex; // index of q_avg among the AQM's state values, -1 if it has none
    int m_pIndex;    // index of p, -1 if none
    std::vector<double> m_probes;
    TracedValue<double> m_qAvg;
    TracedValue<double> m_p;
    EventId m_timer;
    uint64_t m_timerAtNs;
    bool m_departuresAtWire; // departures observed at PhyTxBegin (see OnDevice)
    std::deque<OnDevice> m_onDevice;
    uint64_t m_onDeviceBytes;
};

} // namespace ns3

#endif // AQMLAB_QUEUE_DISC_H
