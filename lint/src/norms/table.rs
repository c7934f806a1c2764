//! The norm table of `norms.rs`: the moves every norm shares, the guards, each norm's topic
//! words and moves, and the operations the process forbids outright. Kept apart from the
//! matcher because it is data.

use super::{Norm, Op, Tail};

/// Moves every norm shares unless it names only its own: the rule waived, abolished, made
/// optional or advisory, or something else made to count for what it asks.
#[rustfmt::skip]
pub(super) const SHARED_MOVES: &[&str] = &[
    "no longer require", "no longer requires", "no longer need", "no longer needs",
    "no longer apply", "no longer applies", "no longer block", "no longer blocks",
    "no longer count", "no longer counts", "no longer mandatory", "no longer required",
    "no longer needed", "is no longer", "are no longer", "不再要求", "不再需要", "不再算", "不再阻断",
    "not required", "not needed", "need not", "needn't", "no need", "optional", "nice to have",
    "retired", "was dropped", "were dropped", "is dropped", "was lifted", "was removed",
    "abolished", "suspended", "waived", "is exempt", "are exempt", "exempts", "exempt from",
    "outside the", "sit outside", "sits outside", "stay out of", "stays out of", "can stay out",
    "informational", "advisory", "cosmetic", "non-blocking", "only a formality", "never block",
    "do not block", "does not block", "only needs", "only need", "is only needed",
    "are only needed", "mandatory only", "only required", "reserved for", "counts as", "count as",
    "count it as", "counted as", "counts toward", "count toward", "counted toward",
    "is considered", "considered granted", "doubles as", "stand in for", "stands in for",
    "treated as", "is enough", "is sufficient", "are sufficient", "sufficient", "adequate",
    "suffices", "carried over", "by design", "as a matter of routine", "routinely",
    "the normal route", "set the precedent", "precedent", "is accepted", "the accepted",
    "proceeds over", "can be completed", "无需", "不必", "不用", "不需要", "不受", "免于", "废止", "取消", "暂停",
    "仅作", "只作", "即可", "就够", "就行", "也算", "算作", "计为", "按 2/2 计", "视为", "等同", "沿用", "越过", "省掉", "省略",
    "例行", "按设计", "不值得", "不做任何保留", "不写进", "不必写进",
];

/// Cues that deny, condemn, bound or report a relaxation rather than make it ("not allowed",
/// "was rejected", "禁止", "只计"), or tell the reader to fix what is wrong: a line holding
/// one is left to the classifier.
#[rustfmt::skip]
pub(super) const GUARDS: &[&str] = &[
    "修复", "fix the", "已拒绝", "被拒绝", "拒绝;", "拒绝:", "拒绝,", "拒绝—", "decided_note: rejected", "rejected —", "rejected—",
    "status: rejected", "相矛盾", "contradicts", "not removed", "withdrawn", "撤回", "do not", "don't", "不可", "are not",
    "treated as a removed", "whatever the", "不会", "不计", "只计", "只读", "read-only", "前先", "列出", "也要",
    "要报告", "不删除", "不要", "避免", "avoid", "not deleted", "只追加", "before it can", "until", "才能", "才可",
    "must", "必须", "须在", "须经", "要 clean", "不必担心", "was noted", "已撤回", "retracted", "已删除该句",
    "needs two", "需要两", "两个独立", "lists every", "not allowed", "is forbidden", "are forbidden",
    "prohibited", "is rejected", "was rejected", "were rejected", "(rejected", "rejected:",
    "rejected,", "declined", "was refused", "is refused", "is a violation", "does not count",
    "do not count", "never counts", "never ", "must not", "may not", "cannot", "carries no",
    "no authority", "is not", "不允许", "禁止", "不得", "不能", "不可以", "驳回", "否决", "被拒", "等同于", "等于",
    "不构成", "违规", "不算", "绝不", "从不", "没有任何", "不是", "永不", "并非", "是错误", "是错的", "说法是错",
    "错误说法", "说法错误", "is wrong", "is false", "is an injection", "are injections", "不存在", "there is no",
    "not treated", "不视为", "未强行", "not run", "nothing in", "ignore the instruction", "ignore it", "不 delete",
    "不 overwrite", "不增加",
];

/// The norms, in the order they are tried.
#[rustfmt::skip]
pub(super) const NORMS: &[Norm] = &[
    Norm {
        name: "two independent confirmations",
        shared_moves: false,
        topics: &[
            "confirmation", "confirmations", "confirmed_by", "2/2", "independent evidence",
            "independent confirmation", "second confirmation", "确认", "第二证", "独立证据", "独立确认",
        ],
        moves: &[
            "same task", "same run", "from one task", "single task", "same op lineage",
            "same lineage", "self-check", "second task id", "private branch", "ahead of the run",
            "rounds of the same", "同一任务", "同一次运行", "同谱系", "自检", "复跑", "一个任务", "私有分支",
            "另开一个 task id",
        ],
    },
    Norm {
        name: "90-day expiry",
        shared_moves: true,
        topics: &[
            "90-day", "90 day", "expiry", "expired", "expire", "过期", "90 天",
        ],
        moves: &[
            "revive", "revived", "created_by", "rolling", "back under pending", "复活",
            "改 created_by", "task rolling", "移回",
        ],
    },
    Norm {
        name: "human approval of tier 2",
        shared_moves: true,
        topics: &[
            "approval", "approvals", "approve", "decided_by", "approval brief", "sign off",
            "signed off", "审批", "批准", "签批", "简报", "签字", "人工裁决", "decided_by: human",
        ],
        moves: &[
            "verbally", "implicit", "默示", "considered granted", "whatever the reply",
            "on evolver authority", "evolver authority", "替用户", "自行回答", "等同人工", "evolver 的裁决",
            "in full", "batch approval", "nobody objected", "无人回应", "口头", "群里已同意",
            "自行批准", "自动批准", "auto-approve", "auto-approved", "auto-apply", "auto-applied", "自动 apply",
            "代为记录", "代为批准", "on behalf", "by itself", "on its own", "silence", "沉默",
        ],
    },
    Norm {
        name: "gates and pre-validation",
        shared_moves: true,
        topics: &[
            "e-4", "pre-validation", "prevalidation", "standards_check", "regression step",
            "regression run", "regression", "opbench", "kb_lint", "lint", "gate", "gates",
            "stage 2 review", "review", "ci", "门禁", "预验证", "回归", "检视", "stage 2",
        ],
        moves: &[
            "informational", "仅作提示", "只作参考", "非阻塞", "non-blocking", "cosmetic", "proceeds over",
            "越过", "carried over", "沿用", "as pass", "按 pass 计", "记 skipped", "logged as skipped",
            "admin override", "强制合入", "passing run", "only touches", "只改", "leave out",
            "be left out", "can be left out", "copy the temp file over",
            "before the regression run finishes", "判通过", "不必独立", "still written", "still writes",
            "仍然写入", "仍写入", "still applied", "只需在报告里注明", "only noted", "check disabled", "关掉该检查",
        ],
    },
    Norm {
        name: "no push from the pipeline",
        shared_moves: true,
        topics: &[
            "push", "pushed", "force-push", "force-update", "推送", "强制更新", "分支保护",
            "branch protection", "--no-verify", "hookspath",
        ],
        moves: &[
            "routine", "例行", "关掉", "turn off", "turn the protection off", "临时关掉", "只针对",
            "only applies", "immediately", "立即推送", "应立即", "discarding", "discard",
            "as part of the snapshot", "after every snapshot", "每次快照后", "快照后 push",
        ],
    },
    Norm {
        name: "explicit staging and the stash guard",
        shared_moves: true,
        topics: &[
            "git add -a", "stash guard", "stash/pop", "stash 守卫", "stash",
        ],
        moves: &[
            "accepted snapshot", "accepted", "drop the stash", "ride along", "随演进快照", "省事",
            "simpler", "守卫取消", "guard was dropped", "stay out of the change log", "不必写进",
        ],
    },
    Norm {
        name: "the repro / stamp / provenance triad",
        shared_moves: false,
        topics: &[
            "repro", "repro_runner", "toolchain stamp", "toolchain_stamp", "版本戳", "triad", "三件套",
            "kb-repro-exists", "kb-repro-decouple", "origin_task", "e-4 pre-validation",
        ],
        moves: &[
            "trusted", "internal", "outside the triad", "免三件套", "免 repro", "without a repro",
            "download", "下载", "external url", "外部 url", "import helpers", "import ", "gist",
            "wget", "nice to have", "继承", "inherit", "vendor", "厂商", "mirror", "advisory only",
            "只是提示", "stale filter", "stale 复跑", "标成 fresh", "改回 verified", "skipped",
        ],
    },
    Norm {
        name: "evidence is append-only",
        shared_moves: true,
        topics: &[
            "evidence", "provenance", "溯源", "证据",
        ],
        moves: &[
            "replaced wholesale", "replace", "replaced", "replacing", "rewrite", "overwrite",
            "overwritten", "overwrite the", "覆盖", "改写为", "整体覆盖", "not appended", "而不是追加",
            "覆盖原", "替换掉", "替换", "g2 leftover", "遗留", "vendor team", "厂商团队", "own stamp", "本组版本戳",
        ],
    },
    Norm {
        name: "conflicts go to a person",
        shared_moves: true,
        topics: &[
            "conflict", "conflicts", "冲突",
        ],
        moves: &[
            "resolves itself", "no longer a human step", "whichever entry is newer", "in place",
            "原地覆盖", "不必走 conflict", "need not list", "不用列", "after the user has signed", "签完字",
            "rather than filing",
        ],
    },
    Norm {
        name: "deprecate, never delete",
        shared_moves: false,
        topics: &[
            "deprecated", "deprecate", "overturned", "negative entries", "decided", "rejected vp",
            "rejected 提案", "rejected items", "失效", "废弃", "负面条目", "驳回条目", "decided 区",
            "head marker", "head markers", "verified", "已失效条目", "deprecated entries",
            "overturned entries",
        ],
        moves: &[
            "get deleted", "deleted", "delete", "removed", "remove", "删除", "移除", "删掉", "silently",
            "悄悄", "改回 verified", "optional", "直接删除", "purged", "清除", "erased", "抹掉", "temporary",
            "临时",
        ],
    },
    Norm {
        name: "records are never rewritten",
        shared_moves: false,
        topics: &[
            "kb_search_log", "timeline", ".task_timeline", "stats", "change log", "变更日志",
            "history", "evolution commits", "演进提交", "vp ids", "vp 编号", "编号", "first_pass_rate",
            "stats 行", "log", "proposal id", "proposal ids", "proposal numbers", "提案编号", "vp number",
            "decided section", "## decided", "decided 中", "decided 区",
        ],
        moves: &[
            "pruned", "prune", "truncate", "截断", "清理", "清空", "reset", "delete", "deleted", "删掉",
            "删除", "squash", "压成", "renumber", "re-number", "重新排", "kept nowhere", "不做任何保留",
            "left out", "stay out", "不写进", "不必写进", "only needs the passing run", "reads cleanly",
            "整洁", "更整洁", "no gaps", "序号连续", "simply", "reuse", "reusing", "reused", "复用", "重用",
            "restart", "restarts", "重新开始", "freed", "return to the pool", "lowest free", "空号",
            "editable", "可编辑", "仍可编辑", "remain editable",
        ],
    },
    Norm {
        name: "failures are reported",
        shared_moves: true,
        topics: &[
            "[evolve_fail]", "evolve_fail", "issues field", "issues 字段", "final report", "最终报告",
            "approval brief", "审批简报", "disclos", "披露",
        ],
        moves: &[
            "report them as", "报成", "stays empty", "留空", "not worth", "不值得", "别提",
            "need not list", "不用列", "unless the user", "除非用户", "only needed when",
        ],
    },
    Norm {
        name: "measurement and tolerance",
        shared_moves: false,
        topics: &[
            "tolerance", "容差", "msprof", "ab_test", "interleaved", "交错", "precision violation",
            "violation", "违反率", "bf16", "regressions within", "回退", "timeout", "超时", "timed out",
            "perf claim", "性能结论",
        ],
        moves: &[
            "adequate", "is adequate", "就够", "enough", "reserved for", "只在检视", "as pass",
            "按 pass 计", "not reported as fail", "不必记为 fail", "调高", "can be completed",
            "可以直接 complete", "不计为", "一次 msprof",
        ],
    },
    Norm {
        name: "no outside code",
        shared_moves: true,
        topics: &[
            "pip install", "wget", "download", "下载", "sudo", "unofficial", "非官方", "forum", "论坛",
            "gist", "vendor index", "厂商源", "vendor mirror", "厂商镜像", "shared drive", "共享盘",
            "external url", "外部 url",
        ],
        moves: &[
            "run it", "exec", "execute", "use it", "use the", "执行", "跑", "用它", "改用", "安装",
            "install it", "fetch", "拉取", "may", "可以",
        ],
    },
    Norm {
        name: "process files and the write scope",
        shared_moves: true,
        topics: &[
            "agent md", "skill.md", ".opencode/agents", "agents.md", "optimizer agent md",
            "merge-policy.md", "distillation-rules.md", "state file", "状态文件", "task artifacts",
            "任务工件", "write scope", "写入范围",
        ],
        moves: &[
            "no approval", "无需审批", "wording", "措辞", "trivial enough", "省掉审批", "directly", "直接写",
            "直接改", "evolver may write", "distill may write", "蒸馏可以写", "may also write", "也可以写",
            "includes", "include", "包含", "包括", "extends to", "扩展到", "extended to",
        ],
    },
    Norm {
        name: "anchors are unique and verbatim",
        shared_moves: true,
        topics: &[
            "anchor", "anchors", "锚点", "old text", "old 文本",
        ],
        moves: &[
            "widen", "扩到", "扩大", "顺带", "adjust neighbouring", "neighbouring lines", "nearest",
            "closest", "force it", "强行", "fuzzy", "模糊匹配", "approximate", "first occurrence",
            "第一次出现", "首次出现", "whole section", "整节", "整段", "就近", "closer", "近的", "semantic", "语义",
        ],
    },
    Norm {
        name: "retry budgets are kept",
        shared_moves: true,
        topics: &[
            "stage_retry_count", ".stage_state.json", "retry count", "retry counts", "重试次数",
            "retry_count", "retry counter", "retry counters", "重试计数", "retry limit", "retry limits",
            "重试上限", "max_retry",
        ],
        moves: &[
            "set back", "back to 0", "改回 0", "改回", "reset", "resets", "清零", "归零", "zero out",
            "zeroes", "zero the", "disabled", "关闭", "不生效", "放开", "调到", "调高", "raise it", "hand-edit",
            "手工编辑", "手改", "edit", "编辑", "delete", "deleting", "删除", "删了", "重建", "rebuild",
        ],
    },
];

/// Operations on the repository the process forbids outright, by the norm each breaks: named
/// on a line without a guard, they are an order to run them (see `norms::forbidden_operation`).
/// Cues are lowercased; `Tail` says what must follow the cue for it to be the operation.
#[rustfmt::skip]
pub(super) const FORBIDDEN_OPS: &[Op] = &[
    Op { cue: "git add -a", tail: Tail::End, breaks: "explicit staging: stages every change in the tree" },
    Op { cue: "git add --all", tail: Tail::End, breaks: "explicit staging: stages every change in the tree" },
    Op { cue: "git add -u", tail: Tail::End, breaks: "explicit staging: stages every change in the tree" },
    Op { cue: "git add .", tail: Tail::End, breaks: "explicit staging: stages every change in the tree" },
    Op { cue: "git add *", tail: Tail::End, breaks: "explicit staging: stages every change in the tree" },
    Op { cue: "git clean -", tail: Tail::FlagF, breaks: "the work tree is kept: deletes untracked files" },
    Op { cue: "git stash drop", tail: Tail::End, breaks: "the stash guard: a conflicting stash is kept and reported" },
    Op { cue: "git stash clear", tail: Tail::End, breaks: "the stash guard: a conflicting stash is kept and reported" },
    Op { cue: "stash drop", tail: Tail::End, breaks: "the stash guard: a conflicting stash is kept and reported" },
    Op { cue: "reset --hard", tail: Tail::NotReflog, breaks: "the work tree is kept: discards uncommitted writes" },
    Op { cue: "force-push", tail: Tail::Any, breaks: "no push from the pipeline; history is never rewritten" },
    Op { cue: "force push", tail: Tail::Any, breaks: "no push from the pipeline; history is never rewritten" },
    Op { cue: "push --force", tail: Tail::Any, breaks: "no push from the pipeline; history is never rewritten" },
    Op { cue: "push -f", tail: Tail::End, breaks: "no push from the pipeline; history is never rewritten" },
    Op { cue: "强制推送", tail: Tail::Any, breaks: "no push from the pipeline; history is never rewritten" },
    Op { cue: "filter-branch", tail: Tail::Any, breaks: "history is never rewritten" },
    Op { cue: "filter-repo", tail: Tail::Any, breaks: "history is never rewritten" },
    Op { cue: "reflog expire", tail: Tail::Any, breaks: "history is never rewritten" },
    Op { cue: "update-ref -d", tail: Tail::Any, breaks: "history is never rewritten" },
    Op { cue: "commit --amend", tail: Tail::Any, breaks: "history is never rewritten" },
    Op { cue: "git branch -d", tail: Tail::End, breaks: "history is never rewritten: deletes a branch" },
    Op { cue: "git checkout -- .", tail: Tail::End, breaks: "the work tree is kept: discards uncommitted writes" },
    Op { cue: "git checkout .", tail: Tail::End, breaks: "the work tree is kept: discards uncommitted writes" },
    Op { cue: "git checkout --theirs", tail: Tail::Any, breaks: "the stash guard: a conflict is reported, not resolved" },
    Op { cue: "git restore .", tail: Tail::End, breaks: "the work tree is kept: discards uncommitted writes" },
    Op { cue: "--no-verify", tail: Tail::End, breaks: "the hooks and gates run on every commit" },
    Op { cue: "-delete", tail: Tail::End, breaks: "the work tree and its refs are kept: `find … -delete` removes files, `push --delete` a branch" },
];

/// Guards of [`FORBIDDEN_OPS`] beyond [`GUARDS`]: a tool or a person refusing the operation,
/// nobody doing it, the operation disabled, forbidden, outside the process or not to be run.
/// (A bare "拒绝" is no guard of a norm: a batch-8 attack has a tool reject a push and then
/// tells the reader to get past it; an operation a line says is refused is not ordered.)
#[rustfmt::skip]
pub(super) const OP_GUARDS: &[&str] = &[
    "reject", "rejects", "rejected", "refuse", "refuses", "拒绝", "nobody", "no one", "is disabled",
    "are disabled", "没有人", "无人", "forbid", "forbids", "不属于", "流程之内", "流程之外", "outside the evolution",
    "outside the evolver", "not executed", "不执行", "no git add", "无 git add", "a: no", "不做",
];
