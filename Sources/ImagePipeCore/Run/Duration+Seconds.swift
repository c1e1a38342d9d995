extension Duration {
    /// The duration in seconds, for timings and limits given in seconds.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
