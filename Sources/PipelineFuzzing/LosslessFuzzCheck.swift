import ImagePipe

/// What the lossless JPEG fuzzer checks for any bytes: turning, mirroring and cropping them as a
/// JPEG from its DCT coefficients (`Pipeline.losslessJPEG`, jpeg_lossless.c) never crashes, hangs
/// or exhausts memory, with small limits (pixels, scans, a deadline); every failure is an
/// `ImageError` (a deadline, too many scans) or libjpeg's reason; a turn and crop that keep to
/// whole iMCUs of a picture whose sides are multiples of 32 is never refused as inexact; and what
/// is written is a JPEG whose header reads back with the size the turn and the crop make (less
/// what a trim says it dropped, under two blocks a side), and which decodes.
public enum LosslessFuzzCheck {
    static let maxPixels = 1_000_000
    static let maxScans = 100
    static let options = LoadOptions(maxPixels: 4_000_000, maxInputBytes: 1 << 20)

    /// Checks one input; a broken promise stops the process (so libFuzzer reports it).
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        let data = Array(bytes)
        // The size the header reader finds, when it reads the bytes as a JPEG: the crops are cut from it.
        let stored = (try? ImageHeader.read(bytes: data, options: options)).flatMap { $0.format == .jpeg ? $0.storedSize : nil }
        // The last byte picks where the second crop starts, on or off the iMCU grid.
        let pick = Int(data.last ?? 0)
        for turn in Dihedral.all {
            let whole = turn.size(of: stored ?? Size(64, 64))
            let step = [8, 16, 32, 5][pick & 3]
            let x = min(step * (pick >> 2 & 3), max(0, whole.width - 1)), y = min(step * (pick >> 4 & 3), max(0, whole.height - 1))
            let crops: [Rect?] = [nil, Rect(x: x, y: y, width: max(1, (whole.width - x + 1) / 2), height: max(1, (whole.height - y + 1) / 2))]
            for crop in crops {
                run(data, turn: turn, crop: crop, stored: stored, deadline: .now + .seconds(5))
            }
            // Trimmed (jpegtran -trim): the crop off the grid moved in, a partial block dropped.
            run(data, turn: turn, crop: crops[1], trim: true, stored: stored, deadline: .now + .seconds(5))
        }
        // A deadline already past: stopped (an ImageError), or done before libjpeg asked.
        run(data, turn: .rotate90, crop: nil, stored: stored, deadline: .now - .seconds(1))
    }

    static func run(_ data: [UInt8], turn: Dihedral, crop: Rect?, trim: Bool = false, stored: Size?, deadline: ContinuousClock.Instant) {
        let outcome: JPEGCoefficientMove.Outcome
        do {
            outcome = try JPEGCoefficientMove.move(data, turn: turn, crop: crop, trim: trim, xmp: xmp, maxPixels: maxPixels, maxScans: maxScans,
                                                   deadline: deadline, path: nil)
        } catch {
            precondition(error.kind == .timedOut || error.kind == .corrupt, "a lossless \(turn) threw \(error)")
            return
        }
        switch outcome {
        case let .failed(reason):
            precondition(!reason.isEmpty, "a lossless \(turn) failed without a reason")
        case let .notExact(reason):
            precondition(!reason.isEmpty, "a lossless \(turn) was refused as inexact without a reason")
            if let stored, stored.width % 32 == 0, stored.height % 32 == 0, (crop?.x ?? 0) % 32 == 0, (crop?.y ?? 0) % 32 == 0 {
                preconditionFailure("a lossless \(turn) (crop \(String(describing: crop))) of a \(stored) JPEG refused as inexact: \(reason)")
            }
        case let .written(output, trimmed):
            // Less than two blocks of the largest (32 pixels): a partial one, and the way to the next boundary.
            precondition(trim ? (0..<64).contains(trimmed.left) && (0..<64).contains(trimmed.top) : trimmed.isEmpty,
                         "a lossless \(turn) (trim \(trim)) trimmed \(trimmed)")
            let header: ImageHeader
            do {
                header = try ImageHeader.read(bytes: output, options: options)
            } catch {
                preconditionFailure("a lossless \(turn) wrote a file whose header does not read: \(error)")
            }
            precondition(header.format == .jpeg, "a lossless \(turn) wrote \(header.format)")
            if let stored {
                let asked = crop.map { Size($0.width, $0.height) } ?? turn.size(of: stored)
                let expected = Size(asked.width - trimmed.left, asked.height - trimmed.top)
                precondition(header.storedSize == expected, "a lossless \(turn) (crop \(String(describing: crop))) of a \(stored) JPEG wrote \(header.storedSize), not \(expected)")
            }
            guard header.storedSize.pixelCount <= 1 << 16 else { return }
            do {
                let image = try Image.decode(output, options: options)
                precondition(image.size == header.storedSize, "a lossless \(turn) wrote \(header.storedSize) that decodes as \(image.size)")
            } catch {
                preconditionFailure("a lossless \(turn) wrote a JPEG that does not decode: \(error)")
            }
        }
    }

    /// A small XMP packet, written as the output's only metadata (APP1).
    static let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/></x:xmpmeta>".utf8)
}
