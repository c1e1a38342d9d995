import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// Every parameter of every stock stage given zero, negative, NaN, infinite, huge and malformed
/// values: the schema refuses them, or the stage handles them — never a crash; and random valid
/// pipelines on random small pictures produce exactly the size their plan said.
@Suite struct ExtremeValueTests {
    static let extremes = ["0", "-1", "-0", "nan", "NaN", "inf", "-inf", "infinity", "1e308", "-1e308", "4294967297",
                           "99999999999999999999999", "", "0x0", "-5x5", "100000x100000", "nan,nan", "1e308,1e308",
                           "0px,0px", "1e308deg", "nan%", "#", "auto", "true", "\u{0}"]

    /// The stock transforms (sinks and sources write files; they are covered by their own tests).
    static let transformNames = StandardPlugins.registry.stageNames.filter { !["load", "save", "tee"].contains($0) }

    /// `name=value` for every required parameter but `skipping`, taken from the stage's example.
    private func requiredArguments(of schema: Schema, skipping: String) throws -> String {
        let example = try StandardPlugins.compiler.compile(schema.example).transforms[0]
        return schema.parameters.filter { $0.isRequired && $0.name != skipping }.map { parameter in
            "\(parameter.name)=\(parameter.type.format(example.arguments[parameter.name]!))"
        }.joined(separator: " ")
    }

    @Test(arguments: transformNames)
    func extremeValuesAreRefusedOrHandled(stage name: String) throws {
        let schema = StandardPlugins.registry.entry(named: name)!.schema
        let pictures = try [Synthetic.gradient(1, 1), Synthetic.gradient(3, 2, alpha: true), Synthetic.gradient(17, 31)]
        for parameter in schema.parameters {
            for value in Self.extremes {
                let text = "\(name) \(try requiredArguments(of: schema, skipping: parameter.name)) \(parameter.name)=\(Quoting.quotedIfNeeded(value))"
                let pipeline: Pipeline
                do {
                    pipeline = try StandardPlugins.compiler.compile(text)
                } catch {
                    continue // refused by the schema, with a located message
                }
                for picture in pictures {
                    do {
                        let plan = try pipeline.plan(sourceSize: picture.size), planned = plan.outputSize
                        guard planned.pixelCount <= 4_000_000 else { continue } // the run's pixel limit refuses these (tested elsewhere)
                        let result = try pipeline.apply(to: picture)
                        #expect(plan.isExact ? result.size == planned : result.size.width <= planned.width && result.size.height <= planned.height,
                                "\(text) on \(picture.size)")
                    } catch is PipelineError {
                    } catch let error as ImageError {
                        #expect(error.kind == .tooLarge || error.kind == .geometry, "\(text): \(error)")
                    }
                }
            }
        }
    }

    @Test func randomValidPipelinesKeepTheirPlans() throws {
        var random = SeededGenerator(seed: 7)
        let registry = StandardPlugins.registry
        for round in 0..<120 {
            var words: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let name = Self.transformNames.randomElement(using: &random)!
                let schema = registry.entry(named: name)!.schema
                var arguments = [name]
                for parameter in schema.parameters where parameter.isRequired || Bool.random(using: &random) {
                    arguments.append("\(parameter.name)=\(Quoting.quotedIfNeeded(RandomValue.text(for: parameter.type, using: &random)))")
                }
                words.append(arguments.joined(separator: " "))
            }
            let text = words.joined(separator: " | ")
            let pipeline: Pipeline
            do {
                pipeline = try StandardPlugins.compiler.compile(text)
            } catch {
                continue // a stage's own check refused the combination (zoom without viewport…)
            }
            let size = random.size(1...64)
            let picture = try Synthetic.gradient(size.width, size.height, alpha: Bool.random(using: &random))
            do {
                let plan = try pipeline.plan(sourceSize: size), planned = plan.outputSize
                guard planned.pixelCount <= 2_000_000 else { continue }
                let result = try pipeline.apply(to: picture)
                // After a pixel-dependent stage (trim) the plan is an estimate; the run's own
                // check (each stage's size against its plan for the real input) still holds.
                if plan.isExact { #expect(result.size == planned, "round \(round): \(text) on \(size)") }
            } catch is PipelineError {}
        }
    }
}

/// Random valid argument text for a parameter type, kept small enough for quick pictures.
enum RandomValue {
    static func text(for type: ParameterType, using random: inout SeededGenerator) -> String {
        func number(_ range: ClosedRange<Double>) -> Double {
            Double.random(in: max(range.lowerBound, -500)...min(range.upperBound, max(range.lowerBound, 0) + 8), using: &random)
        }
        switch type {
        case let .integer(range):
            return String(Int.random(in: range.lowerBound...min(range.upperBound, range.lowerBound + 96), using: &random))
        case let .number(range): return NumberFormat.text(number(range))
        case let .size(max): return "\(Int.random(in: 1...min(max, 96), using: &random))x\(Int.random(in: 1...min(max, 96), using: &random))"
        case .point: return "\(Int.random(in: -40...40, using: &random)),\(Int.random(in: -40...40, using: &random))"
        case .anchor:
            return Bool.random(using: &random) ? Anchor.named.randomElement(using: &random)!.name
                : "\(NumberFormat.text(Double.random(in: -1...2, using: &random))),\(NumberFormat.text(Double.random(in: -1...2, using: &random)))"
        case .color: return ["black", "white", "transparent", "#12345678", "tomato"].randomElement(using: &random)!
        case let .angle(range): return "\(NumberFormat.text(Double.random(in: max(range.lowerBound, -720)...min(range.upperBound, 720), using: &random)))deg"
        case let .percentage(range): return "\(NumberFormat.text(number(range)))%"
        case let .choice(options): return options.randomElement(using: &random)!
        case .boolean: return Bool.random(using: &random) ? "true" : "false"
        case .string, .path: return "x.png"
        case let .numbers(count, each):
            return (0..<Int.random(in: count.lowerBound...min(count.upperBound, 4), using: &random)).map { _ in NumberFormat.text(number(each)) }.joined(separator: ",")
        case let .resizeSize(max):
            let side = { (random: inout SeededGenerator) in
                Bool.random(using: &random) ? "\(Int.random(in: 1...min(max, 96), using: &random))" : "\(Int.random(in: 10...200, using: &random))%"
            }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return "\(side(&random))x"
            case 1: return "x\(side(&random))"
            default: return "\(side(&random))x\(side(&random))"
            }
        case .position:
            return Bool.random(using: &random) ? ["attention", "entropy", "center", "top-left"].randomElement(using: &random)!
                : "\(NumberFormat.text(Double.random(in: -1...2, using: &random))),\(NumberFormat.text(Double.random(in: -1...2, using: &random)))"
        case .cropRect:
            return "\(Int.random(in: 0...8, using: &random)),\(Int.random(in: 0...8, using: &random)),\(Int.random(in: 1...40, using: &random))x\(Int.random(in: 1...40, using: &random))"
        }
    }
}
