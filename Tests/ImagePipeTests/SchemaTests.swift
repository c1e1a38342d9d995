import Testing
import ImagePipe
import TestSupport

@Suite struct SchemaTests {
    private func parse(_ type: ParameterType, _ text: String) throws(ValueError) -> Value { try type.parse(text) }

    private func reason(_ type: ParameterType, _ text: String) -> String? {
        do {
            _ = try type.parse(text)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func integers() throws {
        #expect(try parse(.integer(0...100), "42") == .integer(42))
        #expect(reason(.integer(0...100), "101") == "must be from 0 to 100")
        #expect(reason(.integer(0...100), "4.5") == "expected an integer")
        #expect(reason(.integer(0...100), "") == "expected an integer")
    }

    @Test func numbers() throws {
        #expect(try parse(.number(0...5), "2.5") == .number(2.5))
        #expect(try parse(.number(0...5), "1e0") == .number(1))
        for bad in ["nan", "NaN", "inf", "-inf", "infinity", "x"] {
            #expect(reason(.number(0...5), bad) == "expected a finite number", "\(bad)")
        }
        #expect(reason(.number(0...5), "-0.1") == "must be from 0 to 5")
    }

    @Test func sizes() throws {
        #expect(try parse(.size(max: 10_000), "1280x720") == .size(Size(1280, 720)))
        #expect(try parse(.size(max: 10_000), "300") == .size(Size(300, 300)))
        #expect(try parse(.size(max: 10_000), "64X32") == .size(Size(64, 32)))
        #expect(reason(.size(max: 10_000), "0x10") == "each side must be from 1 to 10000")
        #expect(reason(.size(max: 10_000), "-5x10") == "each side must be from 1 to 10000")
        #expect(reason(.size(max: 10_000), "20000x10") == "each side must be from 1 to 10000")
        #expect(reason(.size(max: 10_000), "10x") == "expected a size WxH, like 1280x720")
        #expect(reason(.size(max: 10_000), "axb") == "expected a size WxH, like 1280x720")
    }

    @Test func points() throws {
        #expect(try parse(.point, "10,-2.5") == .point(Point(10, -2.5)))
        #expect(reason(.point, "10") == "expected a point x,y, like 10,20")
        #expect(reason(.point, "nan,1") == "expected a point x,y, like 10,20")
    }

    @Test func anchors() throws {
        #expect(try parse(.anchor, "center") == .anchor(.center))
        #expect(try parse(.anchor, "bottom-right") == .anchor(.unit(x: 1, y: 1)))
        #expect(try parse(.anchor, "0.5,1.5") == .anchor(.unit(x: 0.5, y: 1.5)))
        #expect(try parse(.anchor, "120px,40px") == .anchor(.pixels(x: 120, y: 40)))
        #expect(reason(.anchor, "middle") != nil)
        #expect(reason(.anchor, "120px,0.5") != nil)
    }

    @Test func colors() throws {
        #expect(try parse(.color, "#f00") == .color(Color(red: 255, green: 0, blue: 0)))
        #expect(try parse(.color, "#00000059") == .color(Color(red: 0, green: 0, blue: 0, alpha: 0x59)))
        #expect(try parse(.color, "#336699") == .color(Color(red: 0x33, green: 0x66, blue: 0x99)))
        #expect(try parse(.color, "#1238") == .color(Color(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x88)))
        #expect(try parse(.color, "rebeccapurple") == .color(Color(red: 0x66, green: 0x33, blue: 0x99)))
        #expect(try parse(.color, "Transparent") == .color(.transparent))
        for bad in ["#12", "#ggg", "#1234567", "notacolour", ""] {
            #expect(reason(.color, bad) != nil, "\(bad)")
        }
    }

    @Test func angles() throws {
        #expect(try parse(.angle(-360...360), "30deg") == .angle(Angle(degrees: 30)))
        #expect(try parse(.angle(-360...360), "-45") == .angle(Angle(degrees: -45)))
        guard case let .angle(radians) = try parse(.angle(-360...360), "0.5rad") else { Issue.record(); return }
        #expect(abs(radians.radians - 0.5) < 1e-12)
        #expect(reason(.angle(-360...360), "400deg") == "must be from -360deg to 360deg")
        #expect(reason(.angle(-360...360), "nandeg") == "expected an angle like 30deg, 0.5rad or 30")
    }

    @Test func percentages() throws {
        #expect(try parse(.percentage(0...100), "35%") == .percentage(35))
        #expect(try parse(.percentage(0...100), "35") == .percentage(35))
        #expect(reason(.percentage(0...100), "135%") == "must be from 0% to 100%")
    }

    @Test func choicesBooleansStringsPathsNumberLists() throws {
        #expect(try parse(.choice(["a", "b"]), "b") == .choice("b"))
        #expect(reason(.choice(["a", "b"]), "c") == "expected one of a, b")
        #expect(try parse(.boolean, "false") == .boolean(false))
        #expect(reason(.boolean, "yes") == "expected true or false")
        #expect(try parse(.string, "") == .string(""))
        #expect(reason(.path, "") == "expected a file path")
        #expect(try parse(.numbers(count: 2...4, each: 0...100), "4,2,1") == .numbers([4, 2, 1]))
        #expect(reason(.numbers(count: 2...4, each: 0...100), "4") == "expected 2 to 4 comma-separated numbers")
        #expect(reason(.numbers(count: 2...4, each: 0...100), "4,-1") == "must be from 0 to 100")
    }

    @Test func resizeSizesPositionsAndCropRectangles() throws {
        #expect(try parse(.resizeSize(max: 100), "64x") == .resizeSize(ResizeSize(width: .pixels(64), height: nil)))
        #expect(try parse(.resizeSize(max: 100), "x9") == .resizeSize(ResizeSize(width: nil, height: .pixels(9))))
        #expect(try parse(.resizeSize(max: 100), "50%") == .resizeSize(ResizeSize(width: .percent(50), height: .percent(50))))
        #expect(reason(.resizeSize(max: 100), "101x") == "each side must be from 1 to 100 pixels")
        #expect(try parse(.position, "attention") == .position(.attention))
        #expect(try parse(.position, "0.5,1") == .position(.anchor(.unit(x: 0.5, y: 1))))
        #expect(reason(.position, "middle")!.hasPrefix("expected a position: attention, entropy, or an anchor"))
        #expect(try parse(.cropRect(max: 100), "1,2,3x4") == .cropRect(CropRect(Rect(x: 1, y: 2, width: 3, height: 4))))
        #expect(reason(.cropRect(max: 100), "1,2,3") == "expected X,Y,WxH or WxH in pixels or percentages, like 10,20,300x200, 10%,10%,50%x50% or 300x200")
        // Each value's text reads back as itself, and each type survives its JSON (run-time plugins).
        let cases: [(ParameterType, [String])] = [
            (.resizeSize(max: 1000), ["640x", "x480", "64x48", "50%", "50%x25%", "12.5%x7"]),
            (.position, ["center", "top-left", "0.3,0", "5px,6px", "attention", "entropy"]),
            (.cropRect(max: 500), ["0,0,1x1", "10%,10%,50%x50%", "3,12.5%,100%x7"]),
        ]
        for (type, texts) in cases {
            for text in texts {
                let value = try type.parse(text)
                #expect(type.format(value) == text)
                #expect(try type.parse(type.format(value)) == value)
            }
            let parameter = Parameter("p", type, default: try type.parse(texts[0]), help: "h")
            let decoded = try SchemaCoding.decode(SchemaCoding.encode(Schema(name: "s", summary: "", parameters: [parameter])))
            #expect(decoded.parameters == [parameter], "\(type)")
        }
    }

    /// Int's whole range survives its JSON, where it is held as 2^63 (converting that back to
    /// Int trapped and took the loading command down).
    @Test func theWholeIntegerRangeSurvivesItsJSON() throws {
        for type in [ParameterType.integer(0...Int.max), .integer(Int.min...Int.max), .integer(-5...5)] {
            let parameter = Parameter("seed", type, help: "h")
            let decoded = try SchemaCoding.decode(SchemaCoding.encode(Schema(name: "s", summary: "", parameters: [parameter])))
            #expect(decoded.parameters == [parameter], "\(type)")
        }
    }

    /// What a plugin may say of a parameter is checked, never trusted: each of these trapped or
    /// could, and is now an error naming the stage, the parameter and the reason.
    @Test(arguments: [
        (#"{"name":"p","kind":"integer","range":[0,1e300]}"#, "has a range bound 1e+300 past a whole number's limits"),
        (#"{"name":"p","kind":"integer","range":[0.5,3]}"#, "has a range bound 0.5 that is not a whole number"),
        (#"{"name":"p","kind":"integer","range":[3,1]}"#, "has a range that is not two finite numbers, the lower first"),
        (#"{"name":"p","kind":"number","range":[0]}"#, "has a range that is not two finite numbers, the lower first"),
        (#"{"name":"p","kind":"size","range":[1,2e6]}"#, "allows sides up to 2000000.0; the most is 1000000"),
        (#"{"name":"p","kind":"crop-rect","range":[0,0]}"#, "allows sides up to 0.0; the most is 1000000"),
        (#"{"name":"p","kind":"numbers","count":[5,2]}"#, "has a count that is not two whole numbers from 1 to 65536, the lower first"),
        (#"{"name":"p","kind":"numbers","count":[1,1e300]}"#, "has a count that is not two whole numbers from 1 to 65536, the lower first"),
        (#"{"name":"p","kind":"choice","choices":[]}"#, "needs a list of choices, each named once"),
        (#"{"name":"p","kind":"choice","choices":["a","a"]}"#, "needs a list of choices, each named once"),
        (#"{"name":"p","kind":"integer","auto":true,"required":true}"#, "accepts auto, which stands for a missing value, yet is required or has a default"),
        (#"{"name":"p","kind":"integer","auto":true,"default":"3"}"#, "accepts auto, which stands for a missing value, yet is required or has a default"),
    ])
    func schemasAPluginGetsWrongAreRefusedWithTheReason(parameter: String, reason: String) throws {
        let json = try #require(JSONValue.parse(#"{"name":"vignette","parameters":["# + parameter + "]}"))
        let error = try #require(throws: StageError.self) { try SchemaCoding.decode(json) }
        #expect(error.message.hasPrefix("stage 'vignette': parameter 'p' " + reason), "\(error.message)")
    }

    @Test func argumentsFillDefaultsAndPositionals() throws {
        let arguments = try TestEveryType.schema.arguments(from: [RawArgument("3"), RawArgument(key: "flag", "true")])
        #expect(arguments["count"] == .integer(3))
        #expect(arguments["flag"] == .boolean(true))
        #expect(arguments["ratio"] == .number(1))
        #expect(!arguments.has("file"))
    }

    @Test func argumentErrorsNameStageParameterValueAndWhatIsAllowed() {
        func message(_ raw: [RawArgument]) -> String? {
            do {
                _ = try TestEveryType.schema.arguments(from: raw)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message([RawArgument(key: "ratoi", "1")]) == "every-type: unknown parameter 'ratoi' (did you mean 'ratio'?)")
        #expect(message([RawArgument(key: "ratio", "3")]) == "every-type: invalid ratio '3': must be from 0 to 2")
        #expect(message([RawArgument("1"), RawArgument("2")])
            == "every-type: unexpected argument '2': every-type takes at most 1 positional (count); name the parameter, as key=value")
        #expect(message([RawArgument("1"), RawArgument(key: "count", "2")]) == "every-type: 'count' is given twice")
        #expect(throws: ArgumentError.self) { try TestCrop.schema.arguments(from: []) }
    }

    /// Every stage's canonical text parses back to an equal stage (design principle 5).
    @Test func canonicalTextRoundTrips() throws {
        let texts = [
            "every-type 3 ratio=0.25 box=640x480 spot=1.5,-2 anchor=0.5,1.5 tint=#11223344 turn=-30deg share=12.5% mode=best flag=true label=\"two words\" file=a.png dash=1,2,3",
            "every-type anchor=120px,40px tint=tomato turn=0.5rad label='quote \" and $dollar' file=\"x=y.png\"",
            "every-type",
            "crop 10x20 at=3,4",
            "load photo.jpg auto-orient=false",
            "save \"out dir/a b.jpg\" format=jpeg quality=80 compression=9 background=#102030",
        ]
        for text in texts {
            let pipeline = try TestRegistry.compiler.compile(text)
            let stage = pipeline.stages.first { !($0 is Load) || text.hasPrefix("load") }!
            let again = try TestRegistry.compiler.compile(stage.text)
            let stageAgain = again.stages.first { type(of: $0) == type(of: stage) }!
            #expect(stageAgain.isEqual(to: stage), "\(text) → \(stage.text)")
            #expect(stageAgain.text == stage.text)
        }
    }

    @Test func canonicalTextLeavesDefaultsOut() throws {
        #expect(try TestRegistry.compiler.compile("save compression=6 keep=none x.png").sink.text == "save x.png")
        #expect(try TestRegistry.compiler.compile("every-type 1 ratio=1").transforms[0].text == "every-type")
        #expect(try TestRegistry.compiler.compile("every-type 2").transforms[0].text == "every-type 2")
    }

    @Test func usageComesFromTheSchema() {
        #expect(TestCrop.schema.usage == "crop SIZE [at=0,0]")
        #expect(Save.schema.usage == "save [PATH] [format=auto] [quality=auto] [compression=6] [background=white] [chroma=auto] [progressive=false] [optimize-coding=auto] [lossless=auto] [near-lossless=false] [effort=auto] [alpha-quality=100] [speed=5] [palette=auto] [colors=auto] [dither=1] [keep=none] [profile=auto] [tiff-compression=deflate] [tile=auto] [loop=auto] [delay=auto] [layout=auto] [tile-size=auto] [overlap=auto] [region-shrink=mean] [skip-blanks=auto] [container=auto] [iiif-id=auto]")
    }
}
