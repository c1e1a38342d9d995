/// A stage type's interface declared once — name, summary, example and its `Param`s — from which
/// its schema is built and its arguments read and written.
///
/// Why key paths and a start value rather than hand-written `init(arguments:)`: Swift cannot
/// make a value of a generic type without calling one of its initialisers, so the declaration
/// takes the stage as its Swift initialiser makes it by default (`start`) and writes every
/// parameter into it through its key path. The stage then writes no `init(arguments:)` or
/// `arguments`, and each parameter is one line that alone holds its name, type, default and
/// help. Where `start` needs a value for a required parameter (`FitStage(1, 1)`), any will do:
/// it is always overwritten.
///
/// A declaration is checked when it is made (in practice the first time the stage's schema is
/// used, which every test of a registry does): names must follow `DeclaredName`'s rule and be distinct, no
/// two parameters may set one property, every default must be a value its own type accepts and
/// prints back the same, and `start` must hold the declared defaults — so the Swift
/// initialiser's default arguments cannot drift from the language's. A broken declaration stops
/// the program there, naming the stage and what is wrong.
public struct StageDeclaration<S: Sendable>: Sendable {
    public let schema: Schema
    public let parameters: [Param<S>]
    let start: @Sendable () throws -> S

    public init(_ name: String, summary: String, example: String? = nil, start: @autoclosure @escaping @Sendable () throws -> S,
                _ parameters: [Param<S>]) {
        let problems = Self.problems(name: name, start: start, parameters)
        // fatalError, not precondition: an optimised build drops a precondition's message, and
        // the stage's writer needs the reason.
        guard problems.isEmpty else { fatalError("stage '\(name)': " + problems.joined(separator: "; ")) }
        schema = Schema(name: name, summary: summary, parameters: parameters.map(\.parameter), example: example)
        self.parameters = parameters
        self.start = start
    }

    /// What is wrong with a declaration, in words; empty when nothing is.
    /// (`start` is called here, so it must not use the declaration it is part of.)
    public static func problems(name: String, start: () throws -> S, _ parameters: [Param<S>]) -> [String] {
        var problems: [String] = []
        if let problem = DeclaredName.problem(name) { problems.append("the name '\(DeclaredName.shown(name))' \(problem)") }
        let started: S?
        do { started = try start() } catch {
            problems.append("its start value cannot be made: \(error)")
            started = nil
        }
        var names = Set<String>(), keys = Set<AnyKeyPath>()
        for param in parameters {
            let parameter = param.parameter
            if let problem = DeclaredName.problem(parameter.name) { problems.append("parameter '\(DeclaredName.shown(parameter.name))' \(problem)") }
            if !names.insert(parameter.name).inserted { problems.append("parameter '\(parameter.name)' is declared twice") }
            if !keys.insert(param.key).inserted { problems.append("parameter '\(parameter.name)' sets the same property as another") }
            if let value = parameter.defaultValue {
                let text = parameter.type.format(value)
                do {
                    let parsed = try parameter.type.parse(text)
                    if parsed != value { problems.append("parameter '\(parameter.name)': default \(text) does not read back as itself") }
                } catch {
                    problems.append("parameter '\(parameter.name)': default \(text) is refused by its own type: \(error.reason)")
                }
                if let started, let held = param.get(started), held != value {
                    problems.append("parameter '\(parameter.name)': declared default \(text), but the start value holds \(parameter.type.format(held))")
                }
            }
        }
        return problems
    }

    /// A stage from validated arguments: `start` with every parameter written in.
    public func stage(from arguments: Arguments) throws -> S {
        var stage = try start()
        for param in parameters { param.set(&stage, arguments[param.name]) }
        return stage
    }

    /// A stage's arguments: every parameter's value, optional ones only when set.
    public func arguments(of stage: S) -> Arguments {
        var arguments = Arguments()
        for param in parameters { arguments[param.name] = param.get(stage) }
        return arguments
    }
}
