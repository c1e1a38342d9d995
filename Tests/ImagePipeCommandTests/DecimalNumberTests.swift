import ImagePipe
import Testing
import TestSupport

/// Numbers in the language are decimal: hexadecimal (which Swift's `Double` reads) is refused,
/// with ImageMagick's `0xSIGMA` habit answered by the replacement.
@Suite struct DecimalNumberTests {
    @Test(arguments: [("3", 3.0), ("-2.5", -2.5), (".5", 0.5), ("5.", 5.0), ("1e2", 100.0), ("+1.5E-1", 0.15)])
    func decimalNumbersAreRead(text: String, value: Double) {
        #expect(DecimalNumber.parse(text) == value)
    }

    @Test(arguments: ["0x10", "0x1.5", "0X3", "inf", "nan", "infinity", "1e", " 3", "3 ", "", ".", "e5", "1_000", "0b1", "--1"])
    func everythingElseIsNot(text: String) {
        #expect(DecimalNumber.parse(text) == nil, "\(text)")
    }

    @Test func hexadecimalInAStageIsRefusedWithTheReplacement() throws {
        for (text, message) in [("blur 0x3", "give the sigma alone: 3"), ("blur 0x1.5", "give the sigma alone: 1.5"),
                                ("sharpen sigma=0x2", "give the sigma alone: 2"), ("rotate angle=0x10", "never read as hexadecimal")] {
            let result = try CommandRunner.run(["check", "-e", text])
            #expect(result.status != 0 && result.standardError.contains(message) && result.standardError.contains("never read as hexadecimal"),
                    "\(text): \(result.standardError)")
        }
        #expect(try CommandRunner.run(["check", "-e", "blur 3 | sharpen sigma=1.5e0"]).status == 0)
        let timeout = try CommandRunner.run(["run", "-e", "blur 1", "in.png", "--timeout", "0x10"])
        #expect(timeout.status == 2 && timeout.standardError.contains("--timeout needs a number of seconds"), "\(timeout.standardError)")
    }
}
