package reconcile

// RecorderForTest returns the event recorder of a reconciler, for tests of SetupWithManager.
func (r *base) RecorderForTest() EventRecorder { return r.recorder }
