extension Registry {
    /// The core stages every pipeline can use: `load` and `save`.
    public static let core = Plugin(name: "core", summary: "Reading and writing image files", stages: [Load.self, Save.self, Tee.self, Branch.self])
}
