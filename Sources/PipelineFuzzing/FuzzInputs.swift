#if canImport(Glibc)
import Glibc
#endif

/// What a fuzz target does when built without libFuzzer: runs the files it is given once each,
/// to replay a corpus or a crash file.
public enum FuzzInputs {
    public static func runEach(_ paths: some Sequence<String>, through check: (UnsafePointer<UInt8>?, Int) -> Int32) {
        for path in paths {
            guard let file = fopen(path, "rb") else { continue }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = fread(&chunk, 1, chunk.count, file)
                bytes += chunk[0..<count]
                if count < chunk.count { break }
            }
            fclose(file)
            _ = bytes.withUnsafeBufferPointer { check($0.baseAddress, $0.count) }
        }
    }
}
