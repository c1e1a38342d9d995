/// What `/metrics` reports, in Prometheus' text format: requests by status, their durations
/// as a histogram, bytes read and sent, the processor time of decoding and encoding, requests
/// refused for want of room, requests in flight and waiting, connections open and response
/// bytes held.
@MainActor
final class ServeMetrics {
    private var byStatus: [UInt32: Int] = [:]
    /// Upper bounds of the duration buckets, in seconds.
    private let bounds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private lazy var buckets = [Int](repeating: 0, count: bounds.count)
    private var count = 0
    private var sum = 0.0
    private var bytesOut = 0
    private var sourceBytes = 0
    private var decodeSeconds = 0.0
    private var encodeSeconds = 0.0
    /// Requests answered 503 because every worker was busy and the queue full, or responses held
    /// the memory budget.
    var refused = 0

    func record(status: UInt32, seconds: Double, bytesOut: Int) {
        byStatus[status, default: 0] += 1
        for (index, bound) in bounds.enumerated() where seconds <= bound { buckets[index] += 1 }
        count += 1
        sum += seconds
        self.bytesOut += bytesOut
    }

    /// A picture made: its source's bytes and its codecs' processor time.
    func record(_ made: ServeJob.Made) {
        sourceBytes += made.sourceBytes
        decodeSeconds += made.codecTime.decoding
        encodeSeconds += made.codecTime.encoding
    }

    func text(inFlight: Int, queued: Int, connections: Int, heldBytes: Int) -> String {
        var lines = ["# HELP imagepipe_requests_total Requests answered, by status.", "# TYPE imagepipe_requests_total counter"]
        for (status, number) in byStatus.sorted(by: { $0.key < $1.key }) { lines.append("imagepipe_requests_total{code=\"\(status)\"} \(number)") }
        lines += ["# HELP imagepipe_request_duration_seconds Time from a request's arrival to its response.",
                  "# TYPE imagepipe_request_duration_seconds histogram"]
        for (bound, number) in zip(bounds, buckets) { lines.append("imagepipe_request_duration_seconds_bucket{le=\"\(bound)\"} \(number)") }
        lines += ["imagepipe_request_duration_seconds_bucket{le=\"+Inf\"} \(count)",
                  "imagepipe_request_duration_seconds_sum \(sum)", "imagepipe_request_duration_seconds_count \(count)",
                  "# HELP imagepipe_response_bytes_total Bytes of response bodies.", "# TYPE imagepipe_response_bytes_total counter",
                  "imagepipe_response_bytes_total \(bytesOut)",
                  "# HELP imagepipe_source_bytes_total Bytes of the sources of the pictures made.", "# TYPE imagepipe_source_bytes_total counter",
                  "imagepipe_source_bytes_total \(sourceBytes)",
                  "# HELP imagepipe_decode_seconds_total Processor time decoding the sources of the pictures made.",
                  "# TYPE imagepipe_decode_seconds_total counter", "imagepipe_decode_seconds_total \(decodeSeconds)",
                  "# HELP imagepipe_encode_seconds_total Processor time encoding the pictures made.",
                  "# TYPE imagepipe_encode_seconds_total counter", "imagepipe_encode_seconds_total \(encodeSeconds)",
                  "# HELP imagepipe_requests_refused_total Requests answered 503 for want of room: every worker busy and the queue full, or the memory budget held by responses.",
                  "# TYPE imagepipe_requests_refused_total counter", "imagepipe_requests_refused_total \(refused)",
                  "# HELP imagepipe_requests_in_flight Requests at work or waiting for a worker.", "# TYPE imagepipe_requests_in_flight gauge",
                  "imagepipe_requests_in_flight \(inFlight)",
                  "# HELP imagepipe_requests_queued Requests in flight waiting for a worker.", "# TYPE imagepipe_requests_queued gauge",
                  "imagepipe_requests_queued \(queued)",
                  "# HELP imagepipe_connections_open Client connections whose socket is open.", "# TYPE imagepipe_connections_open gauge",
                  "imagepipe_connections_open \(connections)",
                  "# HELP imagepipe_response_bytes_held Bytes of responses made and not yet taken by their clients, counted by --max-memory.",
                  "# TYPE imagepipe_response_bytes_held gauge", "imagepipe_response_bytes_held \(heldBytes)"]
        return lines.joined(separator: "\n") + "\n"
    }
}
