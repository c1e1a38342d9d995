import PipelineFuzzing
#if canImport(Glibc)
import Glibc
#endif

// libFuzzer's entry for reading a ledger and writing its report (`imagepipe report`). `make fuzz`
// builds this with -sanitize=fuzzer,address and -DFUZZING, and libFuzzer supplies main(); built
// normally it runs the files it is given once each.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    LedgerFuzzCheck.check(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
@main
struct RunInputsOnce {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { continue }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = fread(&chunk, 1, chunk.count, file)
                bytes += chunk[0..<count]
                if count < chunk.count { break }
            }
            fclose(file)
            _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress, $0.count) }
        }
    }
}
#endif
