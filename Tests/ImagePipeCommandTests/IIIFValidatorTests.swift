import Foundation
import Testing
import TestSupport

/// `imagepipe serve --iiif` against the official IIIF Image API validator (PyPI iiif-validator,
/// which `make test` installs into .build/iiif-validator): every level-2 test of version 3.0
/// under /iiif/3/, and of version 2.x under /iiif/2/ (the 2.1 service), passes, and so do the
/// level-3 tests of what the service also makes (Tests/Serve/iiif_validator_test.py).
@Suite struct IIIFValidatorTests {
    static let validator = ServeTests.root.appendingPathComponent(".build/iiif-validator").path

    @Test(.timeLimit(ServeTests.backstop), .disabled(if: ServeTests.instrumented, "timed for an uninstrumented build"))
    func theOfficialValidatorPassesLevel2() throws {
        #expect(FileManager.default.fileExists(atPath: Self.validator + "/iiif_validator/validator.py"),
                "the validator is not installed: `make iiif-validator` (run by make test) installs it into .build/iiif-validator")
        let directory = try TemporaryDirectory()
        let script = ServeTests.root.appendingPathComponent("Tests/Serve/iiif_validator_test.py").path
        let result = try CommandRunner.runProgram("/usr/bin/python3", [script, CommandRunner.binary, directory.path, Self.validator])
        #expect(result.status == 0, "iiif_validator_test.py failed:\n\(result.standardOutput.suffix(8000))\n\(result.standardError.suffix(4000))")
        #expect(result.standardOutput.contains("0 failure(s)"))
    }
}
