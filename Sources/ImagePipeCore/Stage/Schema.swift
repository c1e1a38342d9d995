/// Everything ImagePipe knows about a stage's interface: name, summary and parameters. Parsing,
/// validation, error messages, `imagepipe stages` and the docs all come from it. A compiled stage
/// has it from its `StageDeclaration`; a stage of a plugin loaded at run time from JSON.
public struct Schema: Sendable {
    /// The lower-kebab-case name used in pipeline text.
    public let name: String
    /// One line for listings.
    public let summary: String
    public let parameters: [Parameter]
    /// A runnable example line for help, e.g. `fit 1280x720`.
    public let example: String

    public init(name: String, summary: String, parameters: [Parameter], example: String? = nil) {
        // fatalError keeps its message in an optimised build; a declaration's writer needs it.
        guard Set(parameters.map(\.name)).count == parameters.count else { fatalError("stage '\(name)' names a parameter twice") }
        self.name = name
        self.summary = summary
        self.parameters = parameters
        self.example = example ?? name
    }

    public func parameter(named name: String) -> Parameter? { parameters.first { $0.name == name } }

    /// `fit SIZE [zoom=1] [upscale=true]`
    public var usage: String { ([name] + parameters.map(\.usage)).joined(separator: " ") }

    /// Validates and converts arguments as written: positional ones fill the positional
    /// parameters in order, named ones their parameter; then defaults fill the rest.
    public func arguments(from raw: [RawArgument]) throws(ArgumentError) -> Arguments {
        var values: [String: Value] = [:]
        var given = Set<String>()
        var positional = parameters.filter(\.isPositional).makeIterator()
        // Parameters an ImageMagick habit stands for (`640x480>`, `modulate 110,140`), with the
        // argument that said them: set after the arguments written out, which they must agree with.
        var implied: [(name: String, value: String, index: Int)] = []
        for (index, argument) in raw.enumerated() {
            let parameter: Parameter
            if let key = argument.key {
                guard let named = self.parameter(named: key) else {
                    throw ArgumentError("\(name): unknown parameter '\(key)'\(hint(forKey: key, value: argument.value))", at: .key(index))
                }
                parameter = named
            } else {
                guard let next = positional.next() else {
                    let reading: ParameterHabits.Reading?
                    do { reading = try ParameterHabits.positionalReading(argument.value, stage: name) } catch {
                        throw ArgumentError("\(name): \(error.reason)", at: .value(index))
                    }
                    if let reading, reading.allSatisfy({ self.parameter(named: $0.name) != nil }) {
                        implied += reading.map { ($0.name, $0.value, index) }
                        continue
                    }
                    // `Q=80`: not a key=value to the lexer (keys are lower-case), but meant as one.
                    if let equals = argument.value.firstIndex(of: "="), case let key = String(argument.value[..<equals]),
                       let replacement = ParameterHabits.replacement(forKey: key, value: String(argument.value[argument.value.index(after: equals)...]), among: parameters.map(\.name)) {
                        throw ArgumentError("\(name): unknown parameter '\(key)': write \(replacement)", at: .value(index))
                    }
                    let takes = parameters.filter(\.isPositional).map(\.name)
                    let what = takes.isEmpty ? "takes no positional argument" : "takes at most \(takes.count) positional (\(takes.joined(separator: ", ")))"
                    throw ArgumentError("\(name): unexpected argument '\(argument.value)': \(name) \(what); name the parameter, as key=value", at: .value(index))
                }
                parameter = next
            }
            guard given.insert(parameter.name).inserted else {
                throw ArgumentError("\(name): '\(parameter.name)' is given twice", at: argument.key == nil ? .value(index) : .key(index))
            }
            if parameter.acceptsAuto, argument.value == "auto" { continue }
            var written = argument.value
            if let options = parameter.type.words, let synonym = ParameterHabits.choice(written, for: parameter.name, among: options) {
                written = synonym
            }
            if case .resizeSize = parameter.type, let (size, reading) = ParameterHabits.geometryFlag(written),
               reading.allSatisfy({ self.parameter(named: $0.name) != nil }) {
                written = size
                implied += reading.map { ($0.name, $0.value, index) }
            }
            do {
                values[parameter.name] = try parameter.type.parse(written)
            } catch {
                var reason = error.reason
                // `rotate 45`: a positional value that another parameter of the stage takes.
                if argument.key == nil, let other = parameters.first(where: { !$0.isPositional && (try? $0.type.parse(written)) != nil }) {
                    reason += "; \(other.name) takes it: write \(other.name)=\(written)"
                }
                throw ArgumentError("\(name): invalid \(parameter.name) '\(argument.value)': \(reason)", at: .value(index))
            }
        }
        for (parameterName, text, index) in implied {
            let value: Value
            do { value = try self.parameter(named: parameterName)!.type.parse(text) } catch {
                throw ArgumentError("\(name): '\(raw[index].value)' reads as \(parameterName)=\(text), which is invalid: \(error.reason)", at: .value(index))
            }
            if let written = values[parameterName], written != value {
                throw ArgumentError("\(name): '\(raw[index].value)' means \(parameterName)=\(text), but \(parameterName) is given as \(self.parameter(named: parameterName)!.type.format(written))", at: .value(index))
            }
            values[parameterName] = value
        }
        for parameter in parameters where values[parameter.name] == nil {
            if parameter.isRequired { throw ArgumentError("\(name): missing \(parameter.name) (\(parameter.type.summary)); usage: \(usage)") }
            values[parameter.name] = parameter.defaultValue
        }
        return Arguments(values)
    }

    /// " (did you mean 'x'?)" for a misspelt parameter, or ": write quality=80" for another
    /// tool's name of one.
    private func hint(forKey key: String, value: String) -> String {
        let names = parameters.map(\.name)
        if let close = Suggestion.closest(to: key, in: names) { return " (did you mean '\(close)'?)" }
        return ParameterHabits.replacement(forKey: key, value: value, among: names).map { ": write \($0)" } ?? ""
    }

    /// The canonical text of a stage with these arguments: defaults left out, positional
    /// parameters bare while they come in order. It parses back to the same arguments.
    public func canonicalText(of arguments: Arguments) -> String {
        var words = [name]
        var stillPositional = true
        for parameter in parameters {
            guard let value = arguments[parameter.name], value != parameter.defaultValue else {
                if parameter.isPositional { stillPositional = false }
                continue
            }
            let text = Quoting.quotedIfNeeded(parameter.type.format(value))
            if parameter.isPositional && stillPositional {
                words.append(text)
            } else {
                stillPositional = false
                words.append("\(parameter.name)=\(text)")
            }
        }
        return words.joined(separator: " ")
    }
}
