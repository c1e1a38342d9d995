import ImagePipe

/// `imagepipe compare A B [--diff OUT] [--fuzz N] [--fail-below DB] [--json]`: how far apart two
/// pictures of one size are, as ImageMagick's `compare -metric` and `dssim` tell it. Exit status
/// as `cmp` and `diff` have it: 0 compared (and at or above --fail-below), 1 below it, 2 when the
/// pictures could not be compared.
struct CompareCommand {
    static let help = """
        usage: imagepipe compare A B [--diff OUT] [--fuzz N] [--fail-below DB] [--json] [options]

        Compares two pictures of one size as they are shown (EXIF orientation applied, colors
        converted to sRGB): PSNR in dB (inf when they are the same), SSIM (11x11 Gaussian window,
        sigma 1.5; 1 is the same picture; needs sides of 11 pixels or more), the largest and the
        mean difference of a sample (0-255), and how many pixels differ. R, G and B are compared,
        and alpha when either picture has it.

        Exit status: 0 compared, 1 PSNR below --fail-below, 2 not compared (a picture that cannot
        be read, sizes that differ, a usage error).

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("compare", summary: "Compare two pictures: PSNR, SSIM, largest and mean difference, a diff picture",
                                                help: help, options: options) { try CompareCommand().main($1) }

    static let diff = CommandOption("--diff", value: "OUT", kind: .file, help: "Write a picture of the differences: A faded, each differing pixel red")
    static let fuzz = CommandOption("--fuzz", value: "N", help: """
        How far apart (0-255, in some channel) two pixels may be and still
        count as the same, for the pixel count and --diff (default 0)
        """) { text in
        guard let value = Int(text), (0...255).contains(value) else { throw UsageError("--fuzz takes a whole number from 0 to 255, not '\(text)'") }
        return value
    }
    static let failBelow = CommandOption("--fail-below", value: "DB", help: "Exit 1 when the PSNR is below DB, for scripts and CI") { text in
        guard let value = DecimalNumber.parse(text), value.isFinite, (0...1000).contains(value) else {
            throw UsageError("--fail-below takes a PSNR in dB (a decimal number from 0 to 1000), not '\(text)'")
        }
        return value
    }
    static let json = CommandFlag("--json", help: "One JSON object instead of lines")
    static let options: [any OptionDeclaring] = [diff, fuzz, failBelow, json] + LimitOptions.options

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        let files = parser.positionals
        guard files.count == 2 else { throw UsageError("compare needs two pictures, A and B; see imagepipe compare --help") }
        let fuzz = try parser.value(of: Self.fuzz) ?? 0
        let floor = try parser.value(of: Self.failBelow)
        let diff = parser.text(of: Self.diff)
        if let diff, let written = OutputCheck.identity(diff), files.contains(where: { OutputCheck.identity($0) == written }) {
            throw UsageError("--diff '\(diff)' is one of the pictures compared; give another name")
        }
        var options = LoadOptions()
        try LimitOptions.apply(parser, to: &options)
        let timeout = try LimitOptions.timeout(parser)
        let pictures: [Image]
        let comparison: PictureComparison
        do {
            pictures = try files.map { file in
                options.deadline = LimitOptions.deadline(in: timeout)
                return try Image.load(path: file, options: options)
            }
            comparison = try PictureComparison(pictures[0], pictures[1], fuzz: fuzz)
            if let diff {
                let picture = try PictureComparison.differencePicture(pictures[0], pictures[1], fuzz: fuzz)
                _ = try Save(path: diff).write(picture, in: RunContext(input: files[0]))
            }
        } catch {
            Console.error(RemedyWording.text(for: error))
            return 2
        }
        if parser.has(Self.json) {
            Console.output(json(comparison, files: files).text)
        } else {
            Console.output(text(comparison))
        }
        if let floor, comparison.psnr < floor { return 1 }
        return 0
    }

    func text(_ comparison: PictureComparison) -> String {
        let pixels = comparison.size.pixelCount
        let share = NumberFormat.text((Double(comparison.differingPixels) / Double(pixels) * 10_000).rounded() / 100)
        return """
            size: \(comparison.size), \(comparison.channels == 4 ? "RGBA" : "RGB")
            PSNR: \(comparison.psnr.isFinite ? "\(NumberFormat.text((comparison.psnr * 100).rounded() / 100)) dB" : "inf (the same pixels)")
            SSIM: \(comparison.ssim.map { NumberFormat.text(($0 * 1_000_000).rounded() / 1_000_000) } ?? "n/a (a side is under \(PictureComparison.ssimWindow) pixels)")
            max difference: \(comparison.maxDifference)
            mean difference: \(NumberFormat.text((comparison.meanDifference * 1000).rounded() / 1000))
            differing pixels: \(comparison.differingPixels) of \(pixels) (\(share)%)\(comparison.fuzz > 0 ? ", fuzz \(comparison.fuzz)" : "")
            """
    }

    func json(_ comparison: PictureComparison, files: [String]) -> JSONValue {
        .object([
            ("a", .string(files[0])), ("b", .string(files[1])),
            ("width", .number(Double(comparison.size.width))), ("height", .number(Double(comparison.size.height))),
            ("channels", .number(Double(comparison.channels))),
            ("identical", .bool(comparison.identical)),
            // JSON has no infinity: the same pictures have no PSNR, and "identical" says why.
            ("psnr", comparison.psnr.isFinite ? .number(comparison.psnr) : .null),
            ("ssim", comparison.ssim.map(JSONValue.number) ?? .null),
            ("maxDifference", .number(Double(comparison.maxDifference))),
            ("meanDifference", .number(comparison.meanDifference)),
            ("differingPixels", .number(Double(comparison.differingPixels))),
            ("fuzz", .number(Double(comparison.fuzz))),
        ])
    }
}
