import Testing
import ImagePipe
import TestSupport

/// A stage written the way the guide says, with one parameter of each shape: required and
/// positional, defaulted, optional with `auto`, optional without, a choice standing for a Swift
/// value, a nested property, and a check across parameters.
private struct Frame: Transform, DeclaredStage, Hashable {
    struct Border: Hashable, Sendable { var width = 2.0 }

    static let declaration = StageDeclaration(
        "frame", summary: "A test frame", example: "frame 10x10", start: Frame(size: Size(1, 1)), [
            Param(\.size, "size", .size(max: 1000), positional: true, help: "Required."),
            Param(\.zoom, "zoom", .number(1...8), default: 1, help: "Defaulted."),
            Param(\.side, "side", .integer(1...100), auto: true, help: "Optional, auto."),
            Param(\.at, "at", .point, help: "Optional."),
            Param(\.wide, "shape", .choice(["narrow": false, "wide": true]), default: false, help: "A choice of Swift values."),
            Param(\.border.width, "border-width", .number(0...10), default: 2, help: "Nested."),
            Param(\.format, "format", .choice(ImageFormat.self), help: "An enum's cases, optional."),
        ])

    var size: Size
    var zoom = 1.0
    var side: Int?
    var at: Point?
    var wide = false
    var border = Border()
    var format: ImageFormat?

    func check() throws(ArgumentError) {
        if side != nil, at != nil { throw .parameter("at", "give side or at, not both") }
    }

    func outputSize(for input: Size) -> Size { size }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { input.pixels }
}

@Suite struct StageDeclarationTests {
    private func parse(_ text: String) throws -> Frame { try StageText.parse(Frame.self, text) }

    @Test func theSchemaComesFromTheDeclaration() {
        let schema = Frame.schema
        #expect(schema.name == "frame" && schema.summary == "A test frame" && schema.example == "frame 10x10")
        #expect(schema.parameters.map(\.name) == ["size", "zoom", "side", "at", "shape", "border-width", "format"])
        let formats = ImageFormat.allCases.map(\.rawValue).joined(separator: "|")
        #expect(schema.usage == "frame SIZE [zoom=1] [side=auto] [at=x,y] [shape=narrow] [border-width=2] [format=\(formats)]")
        let size = schema.parameter(named: "size")!, side = schema.parameter(named: "side")!, at = schema.parameter(named: "at")!
        #expect(size.isRequired && size.isPositional && size.defaultValue == nil)
        #expect(!side.isRequired && side.acceptsAuto && side.defaultValue == nil)
        #expect(!at.isRequired && !at.acceptsAuto && at.defaultValue == nil)
        #expect(schema.parameter(named: "zoom")?.defaultValue == .number(1))
        #expect(schema.parameter(named: "shape")?.type == .choice(["narrow", "wide"]))
        #expect(schema.parameter(named: "shape")?.defaultValue == .choice("narrow"))
        #expect(schema.parameter(named: "border-width")?.defaultValue == .number(2))
    }

    @Test func defaultsComeFromTheDeclaration() throws {
        let frame = try parse("10x20")
        #expect(frame == Frame(size: Size(10, 20)))
        #expect(frame.arguments == Arguments(["size": .size(Size(10, 20)), "zoom": .number(1), "shape": .choice("narrow"),
                                              "border-width": .number(2)]))
        #expect(frame.text == "frame 10x20")
    }

    @Test func valuesAreReadAndWrittenThroughTheProperties() throws {
        let frame = try parse("10x20 zoom=2.5 side=7 shape=wide border-width=0.5")
        #expect(frame.size == Size(10, 20) && frame.zoom == 2.5 && frame.side == 7 && frame.at == nil)
        #expect(frame.wide && frame.border.width == 0.5)
        #expect(frame.text == "frame 10x20 zoom=2.5 side=7 shape=wide border-width=0.5")
        #expect(try parse("10x20 side=auto").side == nil)
        #expect(try parse("10x20 at=3,4").at == Point(3, 4))
        #expect(try parse("10x20 format=png").format == .png)
        #expect(try parse("10x20 format=png").text == "frame 10x20 format=png")
    }

    @Test func textRoundTrips() throws {
        var frame = Frame(size: Size(640, 480))
        frame.zoom = 3
        frame.at = Point(-1.5, 2)
        frame.wide = true
        frame.border.width = 10
        #expect(try parse(frame.text.dropFirst("frame ".count).description) == frame)
        #expect(try Frame(arguments: frame.arguments) == frame)
    }

    @Test func checksAcrossParametersRunAfterEveryValueIsSet() throws {
        do {
            _ = try parse("10x20 side=3 at=1,1")
            Issue.record("both side and at were taken")
        } catch let error as ArgumentError {
            #expect(error.message == "frame: give side or at, not both")
            #expect(error.target == .parameter("at"))
        }
    }

    @Test func requiredParametersAreRequired() {
        #expect(throws: ArgumentError.self) { try Frame.parse([]) }
    }

    @Test func liftedParametersWorkThroughTheOuterStage() throws {
        let tee = try Tee.parse([RawArgument("x.jpg"), RawArgument(key: "quality", "70")])
        #expect(tee.save.path == "x.jpg" && tee.save.options.quality == 70)
        #expect(tee.text == "tee x.jpg quality=70")
        #expect(Tee.schema.parameters.map(\.name) == Save.schema.parameters.map(\.name))
        #expect(Tee.schema.parameter(named: "path")?.isRequired == true)
        #expect(Save.schema.parameter(named: "path")?.isRequired == false)
        #expect(throws: ArgumentError.self) { try Tee.parse([]) }
    }

    // MARK: A broken declaration is caught when it is made

    private func problems(start: Frame = Frame(size: Size(1, 1)), _ parameters: [Param<Frame>]) -> [String] {
        StageDeclaration<Frame>.problems(name: "frame", start: { start }, parameters)
    }

    @Test func theStockDeclarationsAreSound() {
        #expect(StageDeclaration<Frame>.problems(name: "frame", start: { Frame(size: Size(1, 1)) }, Frame.declaration.parameters) == [])
        #expect(StageDeclaration<Load>.problems(name: "load", start: { Load() }, Load.declaration.parameters) == [])
    }

    @Test func aMisspeltNameIsCaught() {
        #expect(problems([Param(\.zoom, "Zoom", .number(1...8), default: 1, help: "")])
            == ["parameter 'Zoom' is not lower-kebab-case"])
        #expect(problems([Param(\.zoom, "border_width", .number(1...8), default: 1, help: "")])
            == ["parameter 'border_width' is not lower-kebab-case"])
        #expect(StageDeclaration<Frame>.problems(name: "Frame", start: { Frame(size: Size(1, 1)) }, [])
            == ["the name 'Frame' is not lower-kebab-case"])
    }

    @Test func aNameDeclaredTwiceIsCaught() {
        #expect(problems([
            Param(\.zoom, "zoom", .number(1...8), default: 1, help: ""),
            Param(\.border.width, "zoom", .number(0...10), default: 2, help: ""),
        ]) == ["parameter 'zoom' is declared twice"])
    }

    @Test func twoParametersOnOnePropertyAreCaught() {
        // The copy-paste slip: a new line that still points at the old property.
        #expect(problems([
            Param(\.zoom, "zoom", .number(1...8), default: 1, help: ""),
            Param(\.zoom, "scale", .number(1...8), default: 1, help: ""),
        ]) == ["parameter 'scale' sets the same property as another"])
    }

    @Test func aDefaultItsTypeRefusesIsCaught() {
        #expect(problems([Param(\.zoom, "zoom", .number(2...8), default: 1, help: "")])
            == ["parameter 'zoom': default 1 is refused by its own type: must be from 2 to 8"])
    }

    @Test func aSwiftDefaultThatDriftsFromTheDeclarationIsCaught() {
        #expect(problems([Param(\.zoom, "zoom", .number(1...8), default: 2, help: "")])
            == ["parameter 'zoom': declared default 2, but the start value holds 1"])
    }

    @Test func aBrokenDeclarationStopsTheProgramWhenItIsMade() async {
        await #expect(processExitsWith: .failure) {
            _ = StageDeclaration<Frame>("frame", summary: "", start: Frame(size: Size(1, 1)), [
                Param(\.zoom, "zoom", .number(1...8), default: 1, help: ""),
                Param(\.zoom, "zoom", .number(1...8), default: 1, help: ""),
            ])
        }
    }

    // MARK: Kinds

    @Test func kindsCarryTheSchemaType() {
        let canvas = ParameterKind<Bool>.choice(["same": false, "expand": true])
        #expect(canvas.type == .choice(["same", "expand"]))
        let optionalFormat = ParameterKind<ImageFormat?>.choice([("auto", nil)] + ImageFormat.allCases.map { ($0.rawValue, $0) })
        #expect(optionalFormat.type == .choice(["auto"] + ImageFormat.allCases.map(\.rawValue)))
        #expect(ParameterKind.choice(ImageFormat.self).type == .choice(ImageFormat.allCases.map(\.rawValue)))
        #expect(ParameterKind<Double>.percentage(0...100).type == .percentage(0...100))
        #expect(ParameterKind<String>.path.type == .path)
    }
}
