/// Stage 4: which state of the previous plan each step continues, decided from control-side
/// keys, shapes and cascade members only (the previous plan's kernel memory belongs to the
/// audio thread while it renders). A step continues the first previous step with its key and
/// shape; a fused cascade continues member by member (a node's sections may sit elsewhere in
/// a longer cascade now). Steps that fade in when new and continue nothing fade in.
package struct StateTransferMap: Equatable {
    package var transfers: [StateTransfer] = []
    /// For each step, whether it fades in (new filters joining a running stream).
    package var fadesIn: [Bool] = []

    /// What a plan remembers of its steps for the next plan's map.
    package struct Outline: Equatable, Sendable {
        package var keys: [String] = []
        package var shapes: [KernelShape] = []
        package var members: [[CascadeMember]] = []

        package init(keys: [String], shapes: [KernelShape], members: [[CascadeMember]]) {
            self.keys = keys; self.shapes = shapes; self.members = members
        }
        /// Members by key, with the step holding each.
        package var membersByKey: [String: (step: Int, member: CascadeMember)] {
            var m: [String: (step: Int, member: CascadeMember)] = [:]
            for (j, list) in members.enumerated() { for c in list { m[c.key] = (j, c) } }
            return m
        }
    }

    package init(_ steps: [PlannedStep], previous: Outline?) {
        guard let previous else {
            fadesIn = steps.map { _ in false }
            return
        }
        var previousIndex: [String: Int] = [:]
        for (j, key) in previous.keys.enumerated() where previousIndex[key] == nil { previousIndex[key] = j }
        let previousMembers = previous.membersByKey
        var continued = Set<Int>()
        for (i, step) in steps.enumerated() {
            guard let shape = step.recipe?.shape else { continue }
            if step.members.isEmpty {
                guard shape.carriesState, let j = previousIndex[step.key], previous.shapes[j] == shape else { continue }
                transfers.append(StateTransfer(step: i, source: j, from: 0, to: 0, count: 0))
            } else {
                for m in step.members {
                    guard let (j, old) = previousMembers[m.key], old.sections == m.sections, old.channels == m.channels else { continue }
                    transfers.append(StateTransfer(step: i, source: j, from: old.offset, to: m.offset, count: m.sections))
                    continued.insert(i)
                }
            }
        }
        fadesIn = steps.enumerated().map { i, s in (s.recipe?.fadesInWhenNew ?? false) && !continued.contains(i) }
    }
}
