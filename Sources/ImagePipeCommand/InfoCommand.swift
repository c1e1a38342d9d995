import ImagePipe

/// `imagepipe info FILE… [--json]`: format, size, orientation, color profile and EXIF facts,
/// as `vipsheader` or `identify` tell them.
struct InfoCommand {
    static let help = """
        usage: imagepipe info FILE... [--json] [options]
               imagepipe info - < photo.jpg

        Shows each picture's format, stored size, EXIF orientation (and the size as shown), how it
        is coded (channels, color space, alpha, bit depth; JPEG chroma, progressive and quality;
        interlacing, lossless WebP, DPI; an animation's delays and loop count), file size,
        embedded color profile (its name and color space), EXIF date, camera, GPS position, lens
        and exposure, and whether it has XMP. --exif lists every EXIF tag, by directory as
        exiftool -G1 does. JPEG, PNG, GIF and WebP are only scanned, HEIC and AVIF read from their
        container; other formats are decoded. `-` reads standard input.

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("info", summary: "Show a picture's format, size, orientation, color profile and EXIF facts",
                                                help: help, options: options) { try InfoCommand().main($1) }

    static let json = CommandFlag("--json", help: "One JSON object per file, with \"file\" first")
    static let exif = CommandFlag("--exif", help: "Every EXIF tag too: directory, name and value (JSON: \"exifTags\")")
    static let options: [any OptionDeclaring] = [json, exif] + LimitOptions.options

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        let files = parser.positionals
        guard !files.isEmpty else { throw UsageError("info needs a file (or - for standard input); see imagepipe info --help") }
        guard files.filter({ $0 == "-" }).count <= 1 else { throw UsageError("standard input (-) can be read only once") }
        var options = LoadOptions()
        try LimitOptions.apply(parser, to: &options)
        let timeout = try LimitOptions.timeout(parser)
        var status: Int32 = 0
        for file in files {
            do {
                // Each file has its own time to be read in (a FIFO whose writer stalls ends at it).
                options.deadline = LimitOptions.deadline(in: timeout)
                let info = file == "-"
                    ? try ImageInfo.read(bytes: StandardStreams.readStandardInput(limit: options.maxInputBytes, seconds: timeout), path: file, options: options)
                    : try ImageInfo.read(path: file, options: options)
                if parser.has(Self.json) {
                    guard case let .object(pairs) = info.json(listingEXIF: parser.has(Self.exif)) else { continue }
                    Console.output(JSONValue.object([("file", .string(file))] + pairs).text)
                } else {
                    Console.output("\(file): " + info.text(listingEXIF: parser.has(Self.exif)).split(separator: "\n").joined(separator: "\n  "))
                }
            } catch {
                Console.error(RemedyWording.text(for: error))
                status = 1
            }
        }
        return status
    }
}
