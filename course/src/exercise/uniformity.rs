//! WGSL's uniformity rule for barriers, checked here because naga 30 does not: every invocation
//! of a workgroup must reach each `workgroupBarrier()`, so a barrier may only sit in *uniform
//! control flow* (CUDA's `__syncthreads()` the same: "calling it in divergent code is undefined
//! and can lead to deadlock; all threads of the block must call it at the same point", Harris,
//! "Using Shared Memory in CUDA C/C++"). `if (tx == 0u) { workgroupBarrier(); }` validated, ran, and
//! once passed an exercise check; WebGPU in a browser (Tint) rejects it.
//!
//! The analysis follows the WGSL specification's intent, conservatively and on naga's IR: a value
//! is non-uniform if it derives from an invocation's own id (`local_invocation_id`,
//! `local_invocation_index`, `global_invocation_id`, subgroup ids), from `read_write` storage or
//! workgroup memory (another invocation may have written it), from an atomic or subgroup
//! operation, or from a local variable that ever holds such a value or is written under
//! non-uniform control. Control flow is non-uniform inside an `if`/`switch` on such a value, in a
//! loop that such a branch can leave, and after a `return` under such a branch. A barrier (or
//! `workgroupUniformLoad`, or a call of a function that has one) there is reported with its line.

use naga::{Block, Expression, Function, Handle, Module, Statement};

/// A barrier the analysis found in non-uniform control flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergent {
    /// The function it is in.
    pub function: String,
    /// 1-based line in the source, 0 when unknown.
    pub line: u32,
    /// What it is (`workgroupBarrier()`, a call of `f`, ...).
    pub what: String,
}

/// Every barrier of `module` (parsed from `source`) that some invocations may not reach.
pub fn divergent_barriers(module: &Module, source: &str) -> Vec<Divergent> {
    let with_barrier = functions_with_barriers(module);
    let mut found = Vec::new();
    for (h, f) in module.functions.iter() {
        let name = f
            .name
            .clone()
            .unwrap_or_else(|| format!("function {}", h.index()));
        Analysis::new(module, f, &with_barrier).run(&name, source, &mut found);
    }
    for ep in &module.entry_points {
        Analysis::new(module, &ep.function, &with_barrier).run(&ep.name, source, &mut found);
    }
    found
}

/// How many barriers `module` has, in every function (what an exercise's solution has and a
/// learner's file may lack).
pub fn barrier_count(module: &Module) -> usize {
    fn count(b: &Block) -> usize {
        b.iter()
            .map(|s| match s {
                Statement::ControlBarrier(_) => 1,
                Statement::Block(b) => count(b),
                Statement::If { accept, reject, .. } => count(accept) + count(reject),
                Statement::Switch { cases, .. } => cases.iter().map(|c| count(&c.body)).sum(),
                Statement::Loop {
                    body, continuing, ..
                } => count(body) + count(continuing),
                _ => 0,
            })
            .sum()
    }
    module
        .functions
        .iter()
        .map(|(_, f)| count(&f.body))
        .sum::<usize>()
        + module
            .entry_points
            .iter()
            .map(|e| count(&e.function.body))
            .sum::<usize>()
}

/// The functions that contain a barrier, directly or through a call.
fn functions_with_barriers(module: &Module) -> Vec<bool> {
    fn has(b: &Block, known: &[bool]) -> bool {
        b.iter().any(|s| match s {
            Statement::ControlBarrier(_) | Statement::WorkGroupUniformLoad { .. } => true,
            Statement::Call { function, .. } => known[function.index()],
            Statement::Block(b) => has(b, known),
            Statement::If { accept, reject, .. } => has(accept, known) || has(reject, known),
            Statement::Switch { cases, .. } => cases.iter().any(|c| has(&c.body, known)),
            Statement::Loop {
                body, continuing, ..
            } => has(body, known) || has(continuing, known),
            _ => false,
        })
    }
    let mut known = vec![false; module.functions.len()];
    loop {
        let next: Vec<bool> = module
            .functions
            .iter()
            .map(|(_, f)| has(&f.body, &known))
            .collect();
        if next == known {
            return known;
        }
        known = next;
    }
}

struct Analysis<'a> {
    module: &'a Module,
    function: &'a Function,
    with_barrier: &'a [bool],
    /// Local variables that may hold a non-uniform value.
    locals: Vec<bool>,
    /// Expression results known non-uniform from the statements (calls, atomics).
    results: Vec<bool>,
    memo: Vec<Option<bool>>,
}

fn nonuniform_builtin(b: &naga::Binding) -> bool {
    use naga::BuiltIn as B;
    matches!(
        b,
        naga::Binding::BuiltIn(
            B::LocalInvocationId
                | B::LocalInvocationIndex
                | B::GlobalInvocationId
                | B::SubgroupInvocationId
                | B::SubgroupId
        )
    )
}

impl<'a> Analysis<'a> {
    fn new(module: &'a Module, function: &'a Function, with_barrier: &'a [bool]) -> Self {
        let n = function.expressions.len();
        Analysis {
            module,
            function,
            with_barrier,
            locals: vec![false; function.local_variables.len()],
            results: vec![false; n],
            memo: vec![None; n],
        }
    }

    /// Whether argument `i` (or, through `member`, one member of a struct argument) is an
    /// invocation's own id.
    fn argument(&self, i: u32, member: Option<u32>) -> bool {
        let Some(arg) = self.function.arguments.get(i as usize) else {
            return false;
        };
        if let Some(b) = &arg.binding {
            return nonuniform_builtin(b);
        }
        match &self.module.types[arg.ty].inner {
            naga::TypeInner::Struct { members, .. } => match member {
                Some(m) => members
                    .get(m as usize)
                    .and_then(|m| m.binding.as_ref())
                    .is_some_and(nonuniform_builtin),
                None => members
                    .iter()
                    .filter_map(|m| m.binding.as_ref())
                    .any(nonuniform_builtin),
            },
            _ => false,
        }
    }

    /// Whether memory read through `pointer` may differ between invocations.
    fn memory(&mut self, pointer: Handle<Expression>) -> bool {
        match self.function.expressions[pointer] {
            Expression::LocalVariable(l) => self.locals[l.index()],
            Expression::GlobalVariable(g) => {
                let var = &self.module.global_variables[g];
                match var.space {
                    naga::AddressSpace::Storage { access } => {
                        access.contains(naga::StorageAccess::STORE)
                    }
                    naga::AddressSpace::WorkGroup | naga::AddressSpace::Private => true,
                    _ => false,
                }
            }
            Expression::Access { base, index } => self.memory(base) || self.value(index),
            Expression::AccessIndex { base, .. } => self.memory(base),
            Expression::FunctionArgument(i) => self.argument(i, None),
            _ => true,
        }
    }

    /// Whether the value of `e` may differ between the invocations of a workgroup.
    fn value(&mut self, e: Handle<Expression>) -> bool {
        if let Some(v) = self.memo[e.index()] {
            return v;
        }
        // A cycle cannot occur (expressions refer to earlier ones); mark first all the same.
        self.memo[e.index()] = Some(false);
        let v = self.results[e.index()]
            || match self.function.expressions[e] {
                Expression::Literal(_)
                | Expression::Constant(_)
                | Expression::Override(_)
                | Expression::ZeroValue(_)
                | Expression::GlobalVariable(_)
                | Expression::LocalVariable(_)
                | Expression::ArrayLength(_)
                | Expression::WorkGroupUniformLoadResult { .. } => false,
                Expression::FunctionArgument(i) => self.argument(i, None),
                Expression::AccessIndex { base, index } => match self.function.expressions[base] {
                    Expression::FunctionArgument(i) => self.argument(i, Some(index)),
                    _ => self.value(base),
                },
                Expression::Access { base, index } => self.value(base) | self.value(index),
                Expression::Load { pointer } => self.memory(pointer),
                // The rest are as uniform as their operands.
                ref e @ (Expression::Compose { .. }
                | Expression::Splat { .. }
                | Expression::Swizzle { .. }
                | Expression::Unary { .. }
                | Expression::As { .. }
                | Expression::Binary { .. }
                | Expression::Select { .. }
                | Expression::Relational { .. }
                | Expression::Math { .. }) => {
                    let mut operands = Vec::new();
                    crate::trace::for_each_operand(e, &mut |h| operands.push(h));
                    operands.into_iter().fold(false, |v, h| self.value(h) | v)
                }
                Expression::CallResult(_) => false,
                Expression::AtomicResult { .. }
                | Expression::SubgroupBallotResult
                | Expression::SubgroupOperationResult { .. }
                | Expression::ImageLoad { .. }
                | Expression::ImageSample { .. }
                | Expression::Derivative { .. } => true,
                _ => false,
            };
        self.memo[e.index()] = Some(v);
        v
    }

    /// Whether `block` can leave the innermost loop (break, continue, return) under a
    /// non-uniform branch.
    fn exits_nonuniformly(&mut self, block: &Block, divergent: bool) -> bool {
        let mut any = false;
        for s in block.iter() {
            any |= match s {
                Statement::Break | Statement::Continue | Statement::Return { .. } => divergent,
                Statement::Block(b) => self.exits_nonuniformly(b, divergent),
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let d = divergent || self.value(*condition);
                    self.exits_nonuniformly(accept, d) | self.exits_nonuniformly(reject, d)
                }
                Statement::Switch { selector, cases } => {
                    let d = divergent || self.value(*selector);
                    cases
                        .iter()
                        .fold(false, |a, c| a | self.exits_nonuniformly(&c.body, d))
                }
                // A nested loop's breaks leave only that loop; its returns leave ours too.
                Statement::Loop {
                    body, continuing, ..
                } => returns(body, divergent, self) || returns(continuing, divergent, self),
                _ => false,
            };
        }
        return any;

        fn returns(b: &Block, divergent: bool, a: &mut Analysis) -> bool {
            b.iter().any(|s| match s {
                Statement::Return { .. } => divergent,
                Statement::Block(b) => returns(b, divergent, a),
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let d = divergent || a.value(*condition);
                    returns(accept, d, a) || returns(reject, d, a)
                }
                Statement::Loop {
                    body, continuing, ..
                } => returns(body, divergent, a) || returns(continuing, divergent, a),
                Statement::Switch { selector, cases } => {
                    let d = divergent || a.value(*selector);
                    cases.iter().any(|c| returns(&c.body, d, a))
                }
                _ => false,
            })
        }
    }

    /// Walk `block` in program order. `divergent`: the flow reaching it is non-uniform.
    /// `returned`: a non-uniform return happened earlier in the function. Barriers found in
    /// divergent flow go to `found` when it is given (the last pass); stores mark locals.
    fn walk(
        &mut self,
        block: &Block,
        mut divergent: bool,
        returned: &mut bool,
        found: &mut Option<(&str, &str, &mut Vec<Divergent>)>,
    ) {
        for (s, span) in block.span_iter() {
            divergent |= *returned;
            let report = |what: String, found: &mut Option<(&str, &str, &mut Vec<Divergent>)>| {
                if let Some((name, source, out)) = found {
                    let line = span.location(source).line_number;
                    out.push(Divergent {
                        function: name.to_string(),
                        line,
                        what,
                    });
                }
            };
            match s {
                Statement::ControlBarrier(b) if divergent => {
                    let what = if b.contains(naga::Barrier::STORAGE) {
                        "storageBarrier()"
                    } else {
                        "workgroupBarrier()"
                    };
                    report(what.to_string(), found);
                }
                Statement::WorkGroupUniformLoad { result, .. } => {
                    if divergent {
                        report("workgroupUniformLoad()".to_string(), found);
                    }
                    let _ = result;
                }
                Statement::Call {
                    function,
                    arguments,
                    result,
                } => {
                    if divergent && self.with_barrier[function.index()] {
                        let callee = self.module.functions[*function]
                            .name
                            .clone()
                            .unwrap_or_default();
                        report(format!("a call of {callee}(), which has a barrier"), found);
                    }
                    if let Some(r) = result {
                        let v = arguments.iter().any(|a| self.value(*a));
                        self.results[r.index()] |= v;
                    }
                }
                Statement::Atomic {
                    result: Some(r), ..
                } => self.results[r.index()] = true,
                Statement::SubgroupBallot { result, .. } => self.results[result.index()] = true,
                Statement::SubgroupCollectiveOperation { result, .. }
                | Statement::SubgroupGather { result, .. } => self.results[result.index()] = true,
                Statement::Store { pointer, value } => {
                    if let Some(l) = local_root(self.function, *pointer) {
                        if divergent || self.value(*value) || self.value_of_index(*pointer) {
                            self.locals[l] = true;
                        }
                    }
                }
                Statement::Block(b) => self.walk(b, divergent, returned, found),
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let d = divergent || self.value(*condition);
                    self.walk(accept, d, returned, found);
                    self.walk(reject, d, returned, found);
                }
                Statement::Switch { selector, cases } => {
                    let d = divergent || self.value(*selector);
                    for c in cases {
                        self.walk(&c.body, d, returned, found);
                    }
                }
                Statement::Loop {
                    body,
                    continuing,
                    break_if,
                } => {
                    let d = divergent
                        || break_if.is_some_and(|b| self.value(b))
                        || self.exits_nonuniformly(body, false)
                        || self.exits_nonuniformly(continuing, false);
                    self.walk(body, d, returned, found);
                    self.walk(continuing, d, returned, found);
                }
                Statement::Return { .. } if divergent => *returned = true,
                _ => {}
            }
        }
    }

    /// Whether a pointer's index expressions (a store to `a[i]`) are non-uniform.
    fn value_of_index(&mut self, pointer: Handle<Expression>) -> bool {
        match self.function.expressions[pointer] {
            Expression::Access { base, index } => self.value(index) || self.value_of_index(base),
            Expression::AccessIndex { base, .. } => self.value_of_index(base),
            _ => false,
        }
    }

    fn run(mut self, name: &str, source: &str, out: &mut Vec<Divergent>) {
        let body = &self.function.body;
        // Locals gain non-uniformity from stores until nothing changes, then the last pass
        // reports.
        loop {
            let before = self.locals.clone();
            self.memo.iter_mut().for_each(|m| *m = None);
            self.walk(body, false, &mut false, &mut None);
            if self.locals == before {
                break;
            }
        }
        self.memo.iter_mut().for_each(|m| *m = None);
        let mut found = Some((name, source, out));
        self.walk(body, false, &mut false, &mut found);
    }
}

/// The local variable a pointer expression stores into, if it is one.
fn local_root(f: &Function, pointer: Handle<Expression>) -> Option<usize> {
    match f.expressions[pointer] {
        Expression::LocalVariable(l) => Some(l.index()),
        Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
            local_root(f, base)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str) -> Vec<Divergent> {
        let m = naga::front::wgsl::parse_str(src).unwrap();
        divergent_barriers(&m, src)
    }

    #[test]
    fn a_barrier_under_an_invocation_id_branch_is_found_with_its_line() {
        let src = include_str!("../../shaders/checks/uniformity_id_branch.wgsl");
        let d = check(src);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].line, 8);
        assert_eq!(d[0].what, "workgroupBarrier()");
    }

    #[test]
    fn an_early_return_before_a_barrier_is_found() {
        let src = include_str!("../../shaders/checks/uniformity_early_return.wgsl");
        assert_eq!(check(src).len(), 1);
    }

    #[test]
    fn uniform_loops_and_branches_pass() {
        let src = include_str!("../../shaders/checks/uniformity_uniform.wgsl");
        assert_eq!(check(src), vec![]);
    }

    #[test]
    fn a_loop_bound_from_the_invocation_id_or_a_loop_left_early_is_divergent() {
        let src = include_str!("../../shaders/checks/uniformity_divergent_loops.wgsl");
        assert_eq!(check(src).len(), 2);
    }

    #[test]
    fn a_local_that_takes_an_id_taints_what_reads_it() {
        let src = include_str!("../../shaders/checks/uniformity_tainted_local.wgsl");
        let d = check(src);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].what.contains("sync"));
    }
}
