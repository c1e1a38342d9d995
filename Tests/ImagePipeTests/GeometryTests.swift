import Testing
import ImagePipe
import TestSupport

/// The seeds' formulas (docs/geometry.md), checked against the models at many odd and even sizes.
@Suite struct GeometryTests {
    @Test func fitViewportFollowsSeed004() {
        var random = SeededGenerator(seed: 4)
        for _ in 0..<2000 {
            let image = random.size(1...5000), viewport = random.size(1...3000)
            let model = FitViewport(viewport: viewport, imageSize: image)
            let zmin = min(Double(viewport.width) / Double(image.width), Double(viewport.height) / Double(image.height))
            #expect(model.minimumZoom == zmin)
            let shown = model.displayedSize()
            // Fits, keeps the aspect to within the rounding, and one side is exactly the viewport's.
            #expect(shown.width <= viewport.width && shown.height <= viewport.height, "\(image) in \(viewport) → \(shown)")
            #expect(shown.width == viewport.width || shown.height == viewport.height, "\(image) in \(viewport) → \(shown)")
            #expect(abs(Double(shown.width) - Double(image.width) * zmin) <= 0.5 + 1e-9 || shown.width == 1)
            #expect(abs(Double(shown.height) - Double(image.height) * zmin) <= 0.5 + 1e-9 || shown.height == 1)
            let origin = model.origin(displayed: shown)
            #expect(origin.x == max(0, (viewport.width - shown.width) / 2))
            #expect(origin.y == max(0, (viewport.height - shown.height) / 2))
        }
    }

    @Test func fitKeepsTheLimitingSideExact() {
        // libvips gives 481x720 here; the limiting side is exact and the other rounds to nearest.
        #expect(FitViewport(viewport: Size(1280, 720), imageSize: Size(2560, 3837)).displayedSize() == Size(480, 720))
        #expect(FitViewport(viewport: Size(1280, 720), imageSize: Size(3, 1)).displayedSize() == Size(1280, 427))
        #expect(FitViewport(viewport: Size(100, 100), imageSize: Size(10000, 1)).displayedSize() == Size(100, 1))
    }

    @Test func sliceViewportFollowsSeed001() {
        var random = SeededGenerator(seed: 1)
        for _ in 0..<2000 {
            let image = random.size(1...5000), slice = random.size(1...1000)
            let model = SliceViewport(slice: slice, imageSize: image)
            let zmin = max(Double(slice.width) / Double(image.width), Double(slice.height) / Double(image.height))
            #expect(model.minimumZoom == zmin)
            #expect(model.maximumZoom == (zmin > 1 ? zmin : 1))
            let factor = Double.random(in: 1...8, using: &random)
            let zoom = model.zoom(factor: factor)
            #expect(zoom >= zmin && zoom <= model.maximumZoom)
            // Centred first display: ((w·z − Ws)/2, (h·z − Hs)/2).
            let centred = model.offset(.center, zoom: zmin)
            #expect(abs(centred.x - (Double(image.width) * zmin - Double(slice.width)) / 2) < 1e-6)
            #expect(abs(centred.y - (Double(image.height) * zmin - Double(slice.height)) / 2) < 1e-6)
            // Any offset is clamped so the window stays on the picture.
            let wild = Anchor.pixels(x: Double.random(in: -5000...5000, using: &random), y: Double.random(in: -5000...5000, using: &random))
            let window = model.window(zoom: zoom, offset: model.offset(wild, zoom: zoom))
            #expect(window.x >= 0 && window.y >= 0)
            #expect(window.maxX <= Double(image.width) + 1e-6 && window.maxY <= Double(image.height) + 1e-6, "\(image) \(slice) \(window)")
        }
    }

    @Test func cropViewportFollowsSeed000() {
        var random = SeededGenerator(seed: 0)
        for _ in 0..<2000 {
            let image = random.size(1...5000), viewport = random.size(20...2000)
            let gap = Double(Int.random(in: 0..<min(viewport.width, viewport.height), using: &random))
            let model = CropViewport(viewport: viewport, gap: gap, imageSize: image)
            let d = Double(min(viewport.width, viewport.height)) - gap
            #expect(model.diameter == d)
            #expect(model.circleOrigin == Point((Double(viewport.width) - d) / 2, (Double(viewport.height) - d) / 2))
            #expect(model.minimumZoom == d / Double(min(image.width, image.height)))
            #expect(model.maximumZoom == max(5, model.minimumZoom))
            #expect(model.firstDisplayZoom == model.clampZoom(Double(min(viewport.width, viewport.height)) / Double(min(image.width, image.height))))
            // Any state bounces back to one where the circle is covered by the picture.
            let state = model.clamp(zoom: Double.random(in: 0.001...20, using: &random),
                                    offset: Point(Double.random(in: -9000...9000, using: &random), Double.random(in: -9000...9000, using: &random)))
            #expect(state.zoom >= model.minimumZoom && state.zoom <= model.maximumZoom)
            let (center, radius) = model.circleInImage(state)
            #expect(abs(radius - d / (2 * state.zoom)) < 1e-9)
            let slack = 1e-6 * max(1, radius)
            #expect(center.x - radius >= -slack && center.x + radius <= Double(image.width) + slack, "\(image) \(viewport) \(state)")
            #expect(center.y - radius >= -slack && center.y + radius <= Double(image.height) + slack, "\(image) \(viewport) \(state)")
            // The offset range is the seed's −c.x ≤ ox ≤ w·z − c.x − d.
            let range = model.offsetRange(zoom: state.zoom)
            #expect(range.x.lowerBound == -model.circleOrigin.x)
            #expect(abs(range.x.upperBound - (Double(image.width) * state.zoom - model.circleOrigin.x - d)) < 1e-6)
            // A state already inside the limits is left as it is.
            #expect(model.clamp(zoom: state.zoom, offset: state.offset) == state)
        }
    }

    @Test func cropViewportCentresAndRelaysOut() {
        let portrait = CropViewport(viewport: Size(375, 667), imageSize: Size(1280, 800))
        let first = portrait.clamp(zoom: portrait.firstDisplayZoom, offset: nil)
        #expect(first.zoom == 375.0 / 800)
        let (center, radius) = portrait.circleInImage(first)
        #expect(abs(center.x - 640) < 1e-9 && abs(center.y - 400) < 1e-9 && abs(radius - 400) < 1e-9)
        // Turned to landscape: the circle comes from the new shorter side (375 again, so the zoom
        // stands), and the offset is clamped to the new, wider layout.
        let (landscape, turned) = portrait.relayout(to: Size(667, 375), first)
        #expect(landscape.diameter == 375)
        #expect(landscape.circleOrigin == Point(146, 0))
        #expect(turned.zoom == first.zoom)
        #expect(landscape.offsetRange(zoom: turned.zoom).x.contains(turned.offset.x))
        #expect(turned.offset.y == 0)
    }

    @Test func anchorsAndRounding() {
        #expect(Anchor.center.position(in: Size(101, 50)) == Point(50.5, 25))
        #expect(Anchor.unit(x: 0.5, y: 1.5).position(in: Size(10, 20)) == Point(5, 30))
        #expect(Anchor.pixels(x: 3, y: 4).position(in: Size(10, 20)) == Point(3, 4))
        #expect(Anchor.unit(x: 1, y: 0).description == "top-right")
        #expect(Rounding.pixels(2.5) == 3 && Rounding.pixels(-2.5) == -3 && Rounding.side(0.2) == 1)
    }
}
