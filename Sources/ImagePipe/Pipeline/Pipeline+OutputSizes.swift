/// Outputs too large for their format, refused before any pixel is decoded.
extension Pipeline {
    /// Checks every file the plan writes (each `tee`'s, the save's, each branch group's) against
    /// its format's longest side (`Save.checkSize`), at the size the plan gives it there. Sizes
    /// after a stage that decides from the pixels (`trim`) are only bounds, and are left to the
    /// encoder.
    func checkOutputSizes(_ plan: Plan, in context: RunContext) throws {
        let exact = plan.firstUpperBoundStep ?? plan.steps.count
        for (index, step) in plan.steps.enumerated() where index < exact {
            guard let tee = step.stage as? Tee else { continue }
            try withLocation(stage: index + 1) { try tee.save.checkSize(step.output, in: context) }
        }
        guard plan.isExact else { return }
        if let save = sink as? Save {
            try withLocation(stage: transforms.count + 1) { try save.checkSize(plan.outputSize, in: context) }
        } else if let branch = sink as? Branch {
            for (group, groupPlan) in zip(branch.groups, plan.groups) { try group.checkOutputSizes(groupPlan, in: context) }
        }
    }
}
