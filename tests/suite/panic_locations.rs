//! The panicking shorthands and operators point at the user's line and name the method the
//! user called: a panic hook records `PanicHookInfo::location()` and the message, which must
//! be this file, the line of the call, and a message starting with the method's name.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use stridex::Tensor;

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static CAUGHT: RefCell<Option<(String, String, u32)>> = const { RefCell::new(None) };
}

/// Installs (once) a hook that records the panics of threads inside [`caught`] and passes the
/// others to the previous hook.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CAPTURING.with(Cell::get) {
                return previous(info);
            }
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let (file, line) = info
                .location()
                .map_or((String::new(), 0), |l| (l.file().to_string(), l.line()));
            CAUGHT.with(|c| *c.borrow_mut() = Some((msg, file, line)));
        }));
    });
}

/// Runs `f`, which must panic, and returns the panic's (message, file, line).
fn caught(f: impl FnOnce()) -> (String, String, u32) {
    install_hook();
    CAPTURING.with(|c| c.set(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURING.with(|c| c.set(false));
    assert!(r.is_err(), "did not panic");
    CAUGHT
        .with(|c| c.borrow_mut().take())
        .expect("the hook saw the panic")
}

/// Asserts that the panic of `f` names `method` and lies on `line` of this file.
#[track_caller]
fn check(method: &str, line: u32, f: impl FnOnce()) {
    let (msg, file, at) = caught(f);
    assert!(
        msg.starts_with(&format!("{method}: ")),
        "{method}: the message names something else: {msg}"
    );
    assert!(
        file.ends_with("panic_locations.rs") && at == line,
        "{method}: the panic points at {file}:{at}, not this file's line {line}: {msg}"
    );
}

/// A `[2^31, 2^31]` f32 view of one element: 2^62 elements, 2^64 bytes, so every copy of it
/// overflows (the huge shapes), without allocating anything.
fn huge() -> Tensor<f32> {
    Tensor::<f32>::zeros(&[1, 1])
        .unwrap()
        .expand(&[1usize << 31, 1 << 31])
        .unwrap()
}

#[test]
fn the_shorthands_panic_at_the_callers_line_naming_themselves() {
    let h = huge();
    check("to_vec", line!() + 1, || {
        let _ = h.to_vec();
    });
    check("contiguous", line!() + 1, || {
        let _ = h.contiguous();
    });
    check("to_owned", line!() + 1, || {
        let _ = h.to_owned();
    });
    check("add_scalar", line!() + 1, || {
        let _ = h.add_scalar(1.0);
    });
    check("mul_scalar", line!() + 1, || {
        let _ = h.mul_scalar(2.0);
    });
    check("cast", line!() + 1, || {
        let _ = h.cast::<f64>();
    });
    check("to_dtype", line!() + 1, || {
        let _ = h.to_dtype::<i32>();
    });
    check("to_vec", line!() + 1, || {
        let _ = h.as_view().to_vec();
    });
    check("contiguous", line!() + 1, || {
        let _ = h.as_view().contiguous();
    });
    check("map", line!() + 1, || {
        let _ = h.map(|x| x + 1.0);
    });
    check("exp", line!() + 1, || {
        let _ = h.exp();
    });
    check("sigmoid", line!() + 1, || {
        let _ = h.sigmoid();
    });
    check("clamp", line!() + 1, || {
        let _ = h.clamp(0.0, 1.0);
    });
    check("neg", line!() + 1, || {
        let _ = h.neg();
    });
}

#[test]
fn the_operators_panic_at_the_callers_line_naming_their_method() {
    let h = huge();
    check("add", line!() + 1, || {
        let _ = &h + 1.0;
    });
    check("mul", line!() + 1, || {
        let _ = 2.0 * &h;
    });
    check("neg", line!() + 1, || {
        let _ = -&h;
    });
    check("neg", line!() + 1, || {
        let _ = -h.clone();
    });
    let ints = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    check("div", line!() + 1, || {
        let _ = &ints / 0;
    });
    // The issue's `x += ..` on a tensor that cannot take it (a shape mismatch; a shared view).
    let mut x = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    check("add_assign", line!() + 1, || {
        x += &Tensor::<f32>::zeros(&[3]).unwrap();
    });
    let base = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    let mut col = base.narrow(1, 0, 1).unwrap();
    check("add_assign", line!(), || col += 1.0);
    check("sub_assign", line!(), || col -= 1.0);
    check("mul_assign", line!(), || col *= 2.0);
    check("div_assign", line!(), || col /= 2.0);
    let mut y = Tensor::<i64>::zeros(&[2]).unwrap();
    check("div_assign", line!(), || y /= 0);
    // The operators of a mutable view.
    let mut z = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    check("sub_assign", line!() + 2, || {
        let mut v = z.view_mut().unwrap();
        v -= &Tensor::<f32>::zeros(&[5]).unwrap();
    });
    let mut w = Tensor::<u8>::zeros(&[2]).unwrap();
    check("div_assign", line!() + 2, || {
        let mut v = w.view_mut().unwrap();
        v /= 0;
    });
    // Indexing with `[]`.
    let t = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    check("index", line!() + 1, || {
        let _ = t[&[2, 0][..]];
    });
}
