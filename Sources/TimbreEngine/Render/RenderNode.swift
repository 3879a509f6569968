import TimbreDSP

/// A node as the render loop sees it: a kernel value, dispatched by `switch` (no existentials,
/// no reference counting). Kernel storage is raw memory owned by the ``RenderPlan``.
public enum RenderNode {
    case biquads(BiquadCascade)
    case gain(GainKernel)
    case pan(PanKernel)
}
