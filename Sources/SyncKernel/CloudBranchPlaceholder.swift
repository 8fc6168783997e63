// Placeholder so the package resolves on branch cloud-anchor, where this target has no code yet.
// Delete when merging: the kernel branch provides the real sources.
