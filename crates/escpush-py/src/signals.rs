//! SIGTERM and SIGHUP (what `timeout`, Kubernetes and CI cancellation send) while a call
//! holds a state it must put back: `esc.assess(...)`, `esc.disabled()`, `Filter.select(...)`
//! (its temporary file), `logpush.apply(...)` (between writes), and the command line's own
//! (`escpush esc secret --save`).
//!
//! Their default action ends the process at once, with nothing put back. For the length of
//! such a call, [`Termination::catch`] makes each one raise `escpush.Terminated` (a
//! `SystemExit` whose `code` is 128 + the signal's number) in the main thread, the way
//! SIGINT raises `KeyboardInterrupt`: the call sees it where it checks for Ctrl-C
//! (`check_signals`), puts back what it changed, and raises it; uncaught, it ends the
//! process with the status a shell gives a process that signal ended.
//!
//! A library must not take signals from the program it runs in, so the handlers are
//! installed only where that is safe: in the main thread (Python runs handlers nowhere else,
//! and `signal.signal` refuses elsewhere), only for a signal whose handler is the default
//! (a program's own handler, or an ignored signal (`nohup`), is left alone), and only for
//! the call: [`Termination::release`] puts the previous handlers back (unless the body
//! installed its own meanwhile). Off the main thread nothing changes: the default action
//! still ends the process.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::registry::ErrorClass;

/// Whether `err` is an `escpush.Terminated`.
pub(crate) fn is_terminated(py: Python<'_>, err: &PyErr) -> bool {
    ErrorClass::Terminated.is_instance(py, err)
}

/// The handler: raises `escpush.Terminated(signum)` where Python runs it (the main thread,
/// at its next check).
#[pyfunction]
fn on_termination(signum: i32, frame: &Bound<'_, PyAny>) -> PyResult<()> {
    Err(ErrorClass::Terminated.new_err(frame.py(), (signum,)))
}

/// The handlers installed for one call, and those they replaced.
#[derive(Debug)]
pub(crate) struct Termination {
    handler: Py<PyAny>,
    /// (signal number, previous handler).
    installed: Vec<(Py<PyAny>, Py<PyAny>)>,
}

impl Termination {
    /// Makes SIGTERM and SIGHUP raise `escpush.Terminated` until [`Termination::release`]
    /// (see the module documentation for where it does nothing). An error only when a
    /// signal that came meanwhile raised (its exception), nothing left installed.
    pub(crate) fn catch(py: Python<'_>) -> PyResult<Termination> {
        let handler = wrap_pyfunction!(on_termination, py)?.into_any();
        Termination::catch_with(py, &handler)
    }

    /// [`Termination::catch`] with another handler.
    fn catch_with(py: Python<'_>, handler: &Bound<'_, PyAny>) -> PyResult<Termination> {
        let signal = py.import("signal")?;
        let default = signal.getattr("SIG_DFL")?;
        let mut guard = Termination {
            handler: handler.clone().unbind(),
            installed: Vec::new(),
        };
        for name in ["SIGTERM", "SIGHUP"] {
            let Ok(signum) = signal.getattr(name) else {
                continue; // Windows has no SIGHUP
            };
            let current = signal.call_method1("getsignal", (&signum,))?;
            if !current.eq(&default)? {
                continue;
            }
            match signal.call_method1("signal", (&signum, handler)) {
                Ok(_) => guard.installed.push((signum.unbind(), current.unbind())),
                // Not the main thread (of the main interpreter): Python runs no handler here.
                Err(e) if e.is_instance_of::<PyValueError>(py) => break,
                Err(e) => {
                    // A signal came meanwhile and its handler raised: nothing is left installed.
                    let _ = guard.release(py);
                    return Err(e);
                }
            }
        }
        Ok(guard)
    }

    /// Puts the previous handlers back. Some(exception) when a signal that came meanwhile
    /// raised as the handlers were put back (Python runs pending handlers first): the call
    /// raises it once it has put back what it changed.
    pub(crate) fn release(mut self, py: Python<'_>) -> Option<PyErr> {
        self.restore(py)
    }

    fn restore(&mut self, py: Python<'_>) -> Option<PyErr> {
        let installed = std::mem::take(&mut self.installed);
        if installed.is_empty() {
            return None;
        }
        let Ok(signal) = py.import("signal") else {
            return None;
        };
        let mut late = None;
        for (signum, previous) in installed {
            // A few tries: each one that fails has run the handler of a signal that came.
            for _ in 0..8 {
                let ours = signal
                    .call_method1("getsignal", (&signum,))
                    .is_ok_and(|h| h.is(&self.handler));
                if !ours {
                    break; // the body installed a handler of its own: it stays
                }
                match signal.call_method1("signal", (&signum, &previous)) {
                    Ok(_) => break,
                    Err(e) => {
                        late.get_or_insert(e);
                    }
                }
            }
        }
        late
    }
}

/// `err`, or the signal's exception that came meanwhile with `err` as its `__context__`
/// (the traceback shows both; the process ends as the signal asked).
pub(crate) fn with_late(py: Python<'_>, late: Option<PyErr>, err: PyErr) -> PyErr {
    match late {
        Some(late) => {
            let _ = late.value(py).setattr("__context__", err.value(py));
            late
        }
        None => err,
    }
}

impl Drop for Termination {
    /// Only when a call returns without [`Termination::release`] (a bug, or a panic): the
    /// handlers are put back all the same.
    fn drop(&mut self) {
        if !self.installed.is_empty() {
            Python::attach(|py| {
                if let Some(late) = self.restore(py) {
                    late.write_unraisable(py, None);
                }
            });
        }
    }
}

/// `escpush._escpush._Terminating()`: for the command line's own states (`escpush esc secret
/// --save` and its temporary file), a context manager during which SIGTERM and SIGHUP are
/// held back: the block runs to its end (its cleanup too, which an exception raised at any
/// line could cut short), then `__exit__` raises `escpush.Terminated` for the first one
/// that came. Installed where [`Termination::catch`] installs its handlers.
#[pyclass(name = "_Terminating", module = "escpush._escpush", frozen)]
#[derive(Debug)]
pub struct PyTerminating {
    guard: Mutex<Option<Termination>>,
    /// The first signal received (0: none).
    received: AtomicI32,
}

#[pymethods]
impl PyTerminating {
    #[new]
    fn new() -> Self {
        PyTerminating {
            guard: Mutex::new(None),
            received: AtomicI32::new(0),
        }
    }

    fn __enter__(slf: &Bound<'_, Self>) -> PyResult<Py<Self>> {
        let guard = Termination::catch_with(slf.py(), slf.as_any())?;
        if let Some(old) = lock(&slf.get().guard).replace(guard) {
            drop(old.release(slf.py()));
        }
        Ok(slf.clone().unbind())
    }

    /// The handler: notes the signal for `__exit__`.
    fn __call__(&self, signum: i32, frame: &Bound<'_, PyAny>) {
        let _ = frame;
        let _ = self
            .received
            .compare_exchange(0, signum, Ordering::Relaxed, Ordering::Relaxed);
    }

    #[pyo3(signature = (exc_type=None, exc=None, tb=None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: Option<&Bound<'_, PyType>>,
        exc: Option<&Bound<'_, PyAny>>,
        tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let _ = (exc_type, exc, tb);
        let guard = lock(&self.guard).take();
        let late = guard.and_then(|g| g.release(py));
        match self.received.swap(0, Ordering::Relaxed) {
            0 => late.map_or(Ok(false), Err),
            signum => Err(ErrorClass::Terminated.new_err(py, (signum,))),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
