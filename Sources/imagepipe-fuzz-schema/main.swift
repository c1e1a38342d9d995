import PipelineFuzzing

// libFuzzer's entry for a plugin's description as `Registry.loadPlugin` reads it. `make fuzz`
// builds this with -sanitize=fuzzer,address and -DFUZZING, and libFuzzer supplies main(); built
// normally it runs the files it is given once each.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    SchemaFuzzCheck.check(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
@main
struct RunInputsOnce {
    static func main() { FuzzInputs.runEach(CommandLine.arguments.dropFirst(), through: fuzzOneInput) }
}
#endif
