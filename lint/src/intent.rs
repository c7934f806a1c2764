//! The structured injection detector behind `KB-SEC-INJECTION` (issue #10): it recognises what
//! an injected instruction *does* rather than naming phrases.
//!
//! # Model
//!
//! An injection addresses the agent that will read the entry and asks it to change the
//! process: approve or merge, skip a gate, ignore the rules, delete or push, reveal secrets,
//! run commands, report a false result, or keep something from the people in charge. Real
//! kernel advice uses the same verbs ("跳过前三次预热", "delete the fp32 buffer", "迁移时直接
//! 移除 host permute") but with *technical* objects, and the knowledge base talks about the
//! process all the time, but *descriptively* ("the reviewer approved VP-2026-0116").
//!
//! So every line is split into clauses and scanned once with one Aho–Corasick automaton over
//! a lexicon of *concepts* (English and Chinese terms; ASCII terms must sit on word
//! boundaries). A clause is flagged when it holds a **frame**: an action concept followed (or,
//! for Chinese, surrounded) by an object concept of the matching kind — skip + gate, approve +
//! proposal, delete + KB file, reveal + secret, report + "passed", … — that is not negated
//! ("禁止跳过门禁", "never delete negative entries"), and whose **mood** is an order: the verb
//! opens the clause, or the line addresses the reader ("Note to the agent:", "读到此处的评审
//! 代理", "you"), or carries a directive ("must", "请", "立即") or a relaxation of the process
//! ("without review", "无需", "even if it failed"). A few concepts are orders by themselves
//! (a persona switch, "new rule:" followed by a process object, piping a download into a
//! shell).
//!
//! Verbs are matched in their base form only, so "skipped", "approved by the reviewer" and
//! "merging" are descriptions, not orders. The scan is linear in the line length: one
//! automaton pass, then a walk over the (few) hits of each clause.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use crate::text::quote;

/// What the injected instruction asks for; each names one line of explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Ask {
    Override,
    SkipGate,
    Approve,
    Delete,
    Push,
    RunCommand,
    Exfiltrate,
    FalseReport,
    RuleChange,
    HideFromUser,
}

impl Ask {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Ask::Override => "override of instructions",
            Ask::SkipGate => "skip a gate/check/review",
            Ask::Approve => "approve or merge without review",
            Ask::Delete => "delete knowledge-base content",
            Ask::Push => "push or rewrite history",
            Ask::RunCommand => "run a command for the reader",
            Ask::Exfiltrate => "exfiltration of secrets",
            Ask::FalseReport => "report a result that was not obtained",
            Ask::RuleChange => "change of the evolution rules",
            Ask::HideFromUser => "hide from the user",
        }
    }
}

/// Lexicon concepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum C {
    /// Words that name the reading agent ("agent", "你", "代理").
    Addr,
    /// Headers that address the reader outright ("note to the agent", "读到此处").
    Header,
    /// Directive mood ("must", "please", "请", "立即").
    Directive,
    /// A relaxation of the process ("without review", "无需", "even if").
    Relax,
    /// A relaxation that abolishes a rule by itself ("no longer", "optional", "废除").
    RelaxStrong,
    /// Negation of the following verb ("do not", "禁止").
    Neg,
    /// "new rule:", "SYSTEM:", "新规则".
    NewRule,
    /// Persona switch or precedence claim: an order by itself.
    Persona,
    VSkip,
    VIgnore,
    VApprove,
    VDelete,
    VPush,
    VReveal,
    VSend,
    VRun,
    VReport,
    VChange,
    VTell,
    /// Stealth adverbs ("silently", "悄悄").
    Stealth,
    OGate,
    /// "确认": a gate only right after 无需/不必.
    OGateWeak,
    ORules,
    OItem,
    /// A managed file or directory of the knowledge base (`stats.md`, `.agents`).
    OKbFile,
    /// Entries, tests, directories: deletable content that is not itself a rule.
    OEntries,
    OSecret,
    OPass,
    ODest,
    ORemote,
    OUser,
    /// A dangerous command by itself (`curl … | sh`, `rm -rf ~`, `git push --force`).
    Cmd,
    /// A command that only matters as an order (`git push`, `pip install`, `evokb clear`).
    CmdWeak,
}

#[rustfmt::skip]
const LEXICON: &[(&str, C)] = &[
    // ----- who is addressed ---------------------------------------------------------
    ("you", C::Addr), ("your", C::Addr), ("you're", C::Addr), ("agent", C::Addr),
    ("agents", C::Addr), ("assistant", C::Addr), ("ai", C::Addr), ("llm", C::Addr),
    ("llms", C::Addr), ("model", C::Addr), ("bot", C::Addr), ("reader", C::Addr),
    ("automation", C::Addr), ("automated", C::Addr),
    ("whoever", C::Addr), ("anyone", C::Addr),
    ("你", C::Addr), ("您", C::Addr), ("代理", C::Addr), ("智能体", C::Addr),
    ("助手", C::Addr), ("模型", C::Addr), ("读者", C::Addr), ("进化器", C::Addr),
    ("自动评审", C::Addr),
    ("note to", C::Header), ("note for", C::Header), ("message to", C::Header),
    ("instruction for", C::Header), ("instructions for", C::Header),
    ("attention:", C::Header), ("attention,", C::Header), ("attention ai", C::Header), ("attention agent", C::Header), ("attention evolver", C::Header), ("attention model", C::Header), ("p.s.", C::Header), ("hey ", C::Header), ("dear ", C::Header),
    ("to the next", C::Header), ("to all agents", C::Header), ("to whoever", C::Header),
    ("whoever reads", C::Header), ("whoever processes", C::Header),
    ("if you are an", C::Header), ("if you are the", C::Header), ("if an llm", C::Header),
    ("if an ai", C::Header), ("reading this", C::Header), ("reads this", C::Header),
    ("reads it", C::Header), ("reading it", C::Header), ("any agent", C::Header),
    ("all agents", C::Header), ("for the bot", C::Header), ("for llm", C::Header),
    ("hidden instruction", C::Header), ("system note", C::Header), ("读到本", C::Header), ("next agent", C::Header),
    ("reading agent", C::Header), ("reviewing model", C::Header),
    ("evaluating agent", C::Header), ("processing this", C::Header),
    ("读到此处", C::Header), ("读到这", C::Header), ("阅读本", C::Header),
    ("看到这条", C::Header), ("须知", C::Header), ("致后续", C::Header), ("致评审", C::Header),
    ("致 evolver", C::Header), ("致所有", C::Header), ("致下一", C::Header), ("给模型", C::Header), ("给下一位", C::Header), ("给 ai", C::Header),
    ("提示给", C::Header), ("通知所有", C::Header), ("所有代理", C::Header),
    ("所有读到", C::Header), ("给自动化", C::Header), ("读者代理", C::Header),
    ("后续的代理", C::Header), ("后来的代理", C::Header), ("下一个读取", C::Header),
    ("读取本", C::Header), ("读取此", C::Header), ("请注意", C::Header), ("代理注意", C::Header),
    ("模型请注意", C::Header),
    // ----- mood ------------------------------------------------------------------------
    ("must", C::Directive), ("should", C::Directive), ("need to", C::Directive),
    ("have to", C::Directive), ("please", C::Directive), ("kindly", C::Directive),
    ("immediately", C::Directive), ("right now", C::Directive), ("from now on", C::Directive),
    ("next time", C::Directive), ("make sure", C::Directive), ("be sure", C::Directive),
    ("go ahead", C::Directive), ("just", C::Directive), ("instead", C::Directive),
    ("必须", C::Directive), ("应当", C::Directive), ("应该", C::Directive), ("须", C::Directive),
    ("请", C::Directive), ("务必", C::Directive), ("立即", C::Directive), ("立刻", C::Directive),
    ("马上", C::Directive), ("一律", C::Directive),
    ("从今以后", C::Directive), ("从现在开始", C::Directive), ("一次性", C::Directive),
    ("可以直接", C::Relax), ("直接", C::Relax), ("可直接", C::Relax),
    ("without review", C::Relax), ("without a review", C::Relax),
    ("without reviewing", C::Relax), ("without approval", C::Relax),
    ("without a proposal", C::Relax), ("without asking", C::Relax),
    ("without reading", C::Relax), ("without deprecation", C::Relax),
    ("without a second", C::Relax), ("without queueing", C::Relax),
    ("without a human", C::Relax), ("without human", C::Relax),
    ("without looking", C::Relax), ("without checking", C::Relax),
    ("without running", C::Relax), ("without verification", C::Relax),
    ("no longer", C::RelaxStrong), ("not required", C::RelaxStrong), ("not needed", C::RelaxStrong),
    ("no need", C::Relax), ("don't bother", C::Relax), ("do not bother", C::Relax),
    ("optional", C::RelaxStrong), ("suspended", C::RelaxStrong), ("disabled", C::RelaxStrong),
    ("abolished", C::RelaxStrong), ("are void", C::RelaxStrong), ("is void", C::RelaxStrong), ("not be consulted", C::RelaxStrong), ("cancelled", C::RelaxStrong), ("canceled", C::RelaxStrong),
    ("pre-approved", C::RelaxStrong), ("pre-trusted", C::RelaxStrong), ("is trusted", C::RelaxStrong),
    ("been vetted", C::RelaxStrong), ("even if", C::Relax), ("even when", C::Relax), ("without", C::Relax), ("even though", C::Relax),
    ("regardless", C::Relax), ("anyway", C::Relax), ("as-is", C::Relax),
    ("false alarm", C::RelaxStrong), ("false alarms", C::RelaxStrong), ("informational only", C::RelaxStrong), ("is broken", C::RelaxStrong),
    ("always passes", C::RelaxStrong), ("always pass", C::RelaxStrong), ("can be emptied", C::RelaxStrong),
    ("can be applied", C::RelaxStrong), ("may be removed", C::RelaxStrong), ("can be removed", C::RelaxStrong),
    ("can be skipped", C::RelaxStrong), ("are automatic", C::RelaxStrong), ("is automatic", C::RelaxStrong),
    ("already agreed", C::Relax), ("authorised to", C::Relax), ("authorized to", C::Relax),
    ("无需", C::Relax), ("不需要", C::Relax), ("不必", C::Relax), ("不用", C::Relax),
    ("无论", C::Relax), ("即使", C::Relax), ("不管", C::Relax), ("已取消", C::RelaxStrong),
    ("取消了", C::RelaxStrong), ("废除", C::RelaxStrong), ("作废", C::RelaxStrong), ("已经人工确认", C::RelaxStrong),
    ("已通过内部", C::RelaxStrong), ("已被信任", C::RelaxStrong), ("已授权", C::Relax), ("授权", C::Relax),
    ("视为误报", C::RelaxStrong), ("当作 warn", C::RelaxStrong), ("有 bug", C::RelaxStrong), ("无效", C::Relax),
    ("不再需要", C::RelaxStrong), ("不受规则", C::RelaxStrong), ("不受约束", C::RelaxStrong), ("不受任何", C::RelaxStrong), ("免审", C::RelaxStrong), ("不要再看", C::RelaxStrong),
    ("不必真正", C::RelaxStrong), ("都不用管", C::RelaxStrong), ("不用管", C::Relax),
    ("do not", C::Neg), ("don't", C::Neg), ("dont", C::Neg), ("never", C::Neg),
    ("avoid", C::Neg), ("not", C::Neg), ("no one", C::Neg), ("nobody", C::Neg), ("禁止", C::Neg), ("不要", C::Neg), ("不得", C::Neg),
    ("切勿", C::Neg), ("别", C::Neg), ("严禁", C::Neg), ("勿", C::Neg), ("不能", C::Neg),
    ("避免", C::Neg), ("不可", C::Neg), ("不应", C::Neg), ("不允许", C::Neg),
    ("new rule", C::NewRule), ("new policy", C::NewRule), ("policy update", C::NewRule),
    ("updated procedure", C::NewRule), ("new procedure", C::NewRule),
    ("new instructions", C::NewRule), ("new instruction", C::NewRule),
    ("system:", C::NewRule), ("operator override", C::NewRule), ("override:", C::NewRule),
    ("real instruction", C::NewRule), ("your instructions changed", C::NewRule),
    ("your new task", C::NewRule), ("automation note", C::NewRule),
    ("新规则", C::NewRule), ("新约定", C::NewRule), ("更新的流程", C::NewRule),
    ("新的流程", C::NewRule), ("新的系统指令", C::NewRule), ("系统指令", C::NewRule),
    ("你的新任务", C::NewRule), ("新流程", C::NewRule),
    ("you are now", C::Persona), ("you're now", C::Persona), ("only what this entry says", C::Persona), ("obey the steps below", C::Persona), ("只听从", C::Persona), ("只遵守本条", C::Persona), ("from this point forward", C::Persona),
    ("from this point on", C::Persona), ("maintenance mode", C::Persona), ("god mode", C::Persona),
    ("jailbreak", C::Persona), ("pretend to be", C::Persona), ("higher-priority instruction", C::Persona),
    ("higher priority than", C::Persona), ("takes precedence", C::Persona),
    ("do whatever this entry says", C::Persona), ("answer as the repository owner", C::Persona),
    ("你现在是", C::Persona), ("你现在的身份", C::Persona), ("你的新身份", C::Persona), ("管理员模式", C::Persona), ("开发者模式", C::Persona),
    ("本条优先级高于", C::Persona), ("此条优先级高于", C::Persona), ("本条目优先级高于", C::Persona), ("优先于所有", C::Persona), ("按本条执行", C::Persona),
    ("照做", C::Persona), ("你是 devmode", C::Persona),
    // ----- actions -------------------------------------------------------------------
    ("skip", C::VSkip), ("bypass", C::VSkip), ("circumvent", C::VSkip), ("disable", C::VSkip),
    ("turn off", C::VSkip), ("switch off", C::VSkip), ("comment out", C::VSkip),
    ("drop", C::VSkip), ("suppress", C::VSkip), ("silence", C::VSkip),
    ("stop verifying", C::VSkip), ("stop checking", C::VSkip), ("stop reviewing", C::VSkip),
    ("stop running", C::VSkip), ("turn off the quarantine", C::VSkip),
    ("跳过", C::VSkip), ("绕过", C::VSkip), ("关闭", C::VSkip), ("禁用", C::VSkip),
    ("注释掉", C::VSkip), ("去掉", C::VSkip), ("屏蔽", C::VSkip), ("略过", C::VSkip),
    ("不用跑", C::VSkip), ("不用再跑", C::VSkip), ("不再检查", C::VSkip), ("清除隔离", C::VSkip),
    ("ignore", C::VIgnore), ("disregard", C::VIgnore), ("forget", C::VIgnore),
    ("overlook", C::VIgnore), ("overrides", C::VIgnore), ("override your", C::VIgnore), ("stop following", C::VIgnore),
    ("stop obeying", C::VIgnore), ("need to follow", C::VIgnore),
    ("忽略", C::VIgnore), ("无视", C::VIgnore), ("忘掉", C::VIgnore), ("忘记", C::VIgnore),
    ("不理会", C::VIgnore), ("不再需要遵守", C::VIgnore), ("不再遵守", C::VIgnore),
    ("不需要遵守", C::VIgnore), ("不用遵守", C::VIgnore), ("不必遵守", C::VIgnore),
    ("approve", C::VApprove), ("accept", C::VApprove), ("merge", C::VApprove),
    ("apply", C::VApprove), ("lgtm", C::VApprove), ("sign off", C::VApprove),
    ("rubber-stamp", C::VApprove), ("close the queue", C::VApprove),
    ("批准", C::VApprove), ("合入", C::VApprove), ("合并", C::VApprove), ("放行", C::VApprove),
    ("接受", C::VApprove), ("应用", C::VApprove),
    ("delete", C::VDelete), ("remove", C::VDelete), ("erase", C::VDelete), ("wipe", C::VDelete),
    ("purge", C::VDelete), ("empty", C::VDelete), ("truncate", C::VDelete),
    ("删除", C::VDelete), ("删掉", C::VDelete), ("清空", C::VDelete), ("移除", C::VDelete),
    ("清掉", C::VDelete), ("抹掉", C::VDelete), ("删去", C::VDelete),
    ("push", C::VPush), ("force-push", C::VPush), ("推送", C::VPush), ("强制推送", C::VPush),
    ("print", C::VReveal), ("echo", C::VReveal), ("reveal", C::VReveal), ("disclose", C::VReveal),
    ("output", C::VReveal), ("include", C::VReveal), ("paste", C::VReveal), ("copy", C::VReveal),
    ("dump", C::VReveal), ("show", C::VReveal), ("attach", C::VReveal), ("append", C::VReveal),
    ("share", C::VReveal), ("leak", C::VReveal), ("write", C::VReveal),
    ("打印", C::VReveal), ("输出", C::VReveal), ("写进", C::VReveal), ("写入", C::VReveal),
    ("附上", C::VReveal), ("附在", C::VReveal), ("贴到", C::VReveal), ("贴在", C::VReveal),
    ("泄露", C::VReveal), ("复制到", C::VReveal), ("包含", C::VReveal), ("透露", C::VReveal),
    ("send", C::VSend), ("post", C::VSend), ("upload", C::VSend), ("exfiltrate", C::VSend),
    ("forward", C::VSend), ("transmit", C::VSend), ("mail", C::VSend), ("email", C::VSend),
    ("发到", C::VSend), ("发送", C::VSend), ("发给", C::VSend), ("上传", C::VSend),
    ("传到", C::VSend), ("外发", C::VSend), ("回传", C::VSend),
    ("run", C::VRun), ("execute", C::VRun), ("exec", C::VRun), ("invoke", C::VRun),
    ("eval", C::VRun), ("执行", C::VRun), ("运行", C::VRun), ("跑", C::VRun), ("调用", C::VRun),
    ("report", C::VReport), ("declare", C::VReport), ("mark", C::VReport), ("answer", C::VReport),
    ("reply", C::VReport), ("respond", C::VReport), ("claim", C::VReport), ("treat", C::VReport),
    ("consider", C::VReport), ("set", C::VReport), ("tell the user", C::VReport),
    ("标记", C::VReport), ("标成", C::VReport), ("标为", C::VReport), ("报告", C::VReport),
    ("汇报", C::VReport), ("回复", C::VReport), ("回答", C::VReport), ("写成", C::VReport),
    ("改成", C::VReport), ("改为", C::VReport), ("视为", C::VReport), ("当作", C::VReport),
    ("当成", C::VReport), ("声称", C::VReport), ("写明", C::VReport), ("给出", C::VReport),
    ("告诉用户", C::VReport),
    ("rewrite", C::VChange), ("overwrite", C::VChange), ("modify", C::VChange),
    ("edit", C::VChange), ("覆盖到", C::VChange), ("改写", C::VChange), ("修改", C::VChange),
    ("tell", C::VTell), ("inform", C::VTell), ("mention", C::VTell), ("notify", C::VTell),
    ("告诉", C::VTell), ("告知", C::VTell), ("提及", C::VTell), ("通知", C::VTell),
    ("透露给", C::VTell), ("隐瞒", C::VTell), ("瞒着", C::VTell), ("need to see", C::VTell),
    ("informing", C::VTell), ("telling", C::VTell), ("notifying", C::VTell), ("mentioning", C::VTell),
    ("secret from", C::VTell), ("hidden from", C::VTell), ("needs to know", C::VTell), ("leave it out of", C::VTell), ("hide", C::VTell), ("conceal", C::VTell), ("跟用户说", C::VTell), ("向用户说明", C::VTell),
    ("向用户提", C::VTell), ("对用户说", C::VTell), ("跟用户提", C::VTell), ("向用户汇报", C::VTell),
    ("向用户报告", C::VTell), ("告诉维护者", C::VTell), ("向维护者提及", C::VTell),
    ("silently", C::Stealth), ("quietly", C::Stealth), ("secretly", C::Stealth),
    ("静默", C::Stealth), ("悄悄", C::Stealth), ("偷偷", C::Stealth),
    // ----- objects -------------------------------------------------------------------
    ("gate", C::OGate), ("gates", C::OGate), ("lint", C::OGate), ("kb_lint", C::OGate),
    ("review", C::OGate), ("reviews", C::OGate), ("precision check", C::OGate), ("accuracy check", C::OGate), ("the checks", C::OGate), ("all checks", C::OGate), ("safety checks", C::OGate), ("lint check", C::OGate), ("tier 0 checks", C::OGate), ("pre-merge check", C::OGate),
    ("verification", C::OGate), ("hook", C::OGate), ("hooks", C::OGate),
    ("pre-commit", C::OGate), ("quarantine", C::OGate), ("guardrails", C::OGate),
    ("gate_lint.py", C::OGate), ("evidence check", C::OGate), ("kb-sec", C::OGate),
    ("safety", C::OGate), ("validation", C::OGate), ("precision gate", C::OGate),
    ("门禁", C::OGate), ("精度检查", C::OGate), ("所有检查", C::OGate), ("安全检查", C::OGate), ("精度校验", C::OGate), ("人工确认", C::OGate), ("确认", C::OGateWeak), ("审核", C::OGate),
    ("评审", C::OGate), ("审查", C::OGate), ("复核", C::OGate), ("钩子", C::OGate),
    ("隔离", C::OGate), ("复测", C::OGate), ("msprof 复测", C::OGate),
    ("previous instructions", C::ORules), ("prior instructions", C::ORules),
    ("above instructions", C::ORules), ("earlier instructions", C::ORules),
    ("your instructions", C::ORules), ("system instructions", C::ORules),
    ("the instructions", C::ORules), ("these instructions", C::ORules),
    ("all instructions", C::ORules), ("any instructions", C::ORules),
    ("other instructions", C::ORules), ("original instructions", C::ORules),
    ("earlier instruction", C::ORules), ("this instruction", C::ORules), ("rules", C::ORules),
    ("rule", C::ORules), ("guidance", C::ORules), ("safety rules", C::ORules), ("directives", C::ORules), ("prior context", C::ORules), ("previous context", C::ORules), ("guidelines", C::ORules),
    ("policy", C::ORules), ("merge policy", C::ORules), ("merge-policy", C::ORules),
    ("agents.md", C::ORules), ("skill.md", C::ORules), ("skill file", C::ORules),
    ("skill instructions", C::ORules), ("system prompt", C::ORules), ("protocol", C::ORules),
    ("之前的指令", C::ORules), ("以上指令", C::ORules), ("上述指令", C::ORules),
    ("所有指令", C::ORules), ("此前的指令", C::ORules), ("前面的指令", C::ORules),
    ("上面的指令", C::ORules), ("原有指令", C::ORules), ("全部指令", C::ORules),
    ("以上的指令", C::ORules), ("先前的指令", C::ORules), ("规则", C::ORules), ("规定", C::ORules), ("要求", C::ORules),
    ("规范", C::ORules), ("约束", C::ORules), ("流程", C::ORules), ("技能文件", C::ORules),
    ("proposal", C::OItem), ("proposals", C::OItem), ("queue", C::OItem), ("queued", C::OItem),
    ("queue item", C::OItem), ("queue items", C::OItem), ("pr", C::OItem), ("prs", C::OItem),
    ("pull request", C::OItem), ("delta", C::OItem), ("deltas", C::OItem), ("tier 0", C::OItem),
    ("tier 1", C::OItem), ("tier 2", C::OItem), ("pending", C::OItem), ("this change", C::OItem),
    ("changes", C::OItem), ("vp-", C::OItem), ("提案", C::OItem), ("队列", C::OItem),
    ("待审", C::OItem), ("变更", C::OItem),
    ("negative entries", C::OEntries), ("negative entry", C::OEntries), ("entries", C::OEntries),
    ("entry", C::OEntries), ("stats.md", C::OKbFile), (".agents", C::OKbFile),
    ("index.md", C::OKbFile), ("cases.md", C::OKbFile), ("queue.md", C::OKbFile),
    ("traps-", C::OKbFile), ("repro script", C::OEntries), ("failing test", C::OEntries),
    ("test", C::OEntries), ("tests", C::OEntries), ("evokb.toml", C::OKbFile),
    ("负面条目", C::OEntries), ("条目", C::OEntries), ("负面经验", C::OEntries),
    ("测试", C::OEntries), ("规则文件", C::OKbFile), ("目录", C::OEntries), ("本文件", C::OKbFile),
    ("api token", C::OSecret), ("access token", C::OSecret), ("auth token", C::OSecret), ("api key", C::OSecret), ("api 密钥", C::OSecret),
    ("api_key", C::OSecret), ("secret", C::OSecret), ("secrets", C::OSecret),
    ("credentials", C::OSecret), ("password", C::OSecret), ("passwords", C::OSecret),
    (".env", C::OSecret), (".ssh", C::OSecret), ("id_rsa", C::OSecret),
    ("id_ed25519", C::OSecret), ("deploy key", C::OSecret), ("private key", C::OSecret),
    ("environment variables", C::OSecret), ("os.environ", C::OSecret),
    ("printenv", C::OSecret), ("system prompt", C::OSecret), ("cookie", C::OSecret),
    (".aws", C::OSecret), ("hosts.yml", C::OSecret), ("/etc/passwd", C::OSecret),
    ("/etc/shadow", C::OSecret), ("secrets manager", C::OSecret),
    ("密钥", C::OSecret), ("私钥", C::OSecret), ("令牌", C::OSecret), ("凭据", C::OSecret),
    ("凭证", C::OSecret), ("密码", C::OSecret), ("环境变量", C::OSecret),
    ("系统提示词", C::OSecret),
    ("passed", C::OPass), ("pass", C::OPass), ("verified", C::OPass), ("approved", C::OPass),
    ("accepted", C::OPass), ("done", C::OPass), ("lgtm", C::OPass), ("checks passed", C::OPass),
    ("succeeded", C::OPass), ("benchmark passed", C::OPass), ("everything is fine", C::OPass),
    ("通过", C::OPass), ("达标", C::OPass), ("已批准", C::OPass),
    ("精度达标", C::OPass), ("误报", C::OPass), ("false alarm", C::OPass), ("false alarms", C::OPass), ("warn", C::OPass), ("informational", C::OPass), ("advisory", C::OPass),
    ("negative: false", C::OPass), ("+30%", C::OPass),
    ("http://", C::ODest), ("https://", C::ODest), ("webhook", C::ODest), ("@", C::ODest),
    ("外部", C::ODest), ("服务器", C::ODest), ("pastebin", C::ODest), ("chat", C::ODest),
    ("origin", C::ORemote), ("main", C::ORemote), ("remote", C::ORemote),
    ("--force", C::ORemote), ("-f", C::ORemote), ("release branch", C::ORemote),
    ("snapshot", C::ORemote), ("远程", C::ORemote), ("main 分支", C::ORemote),
    ("user", C::OUser), ("users", C::OUser), ("human", C::OUser), ("maintainer", C::OUser),
    ("maintainers", C::OUser), ("reviewer", C::OUser), ("reviewers", C::OUser),
    ("owner", C::OUser), ("changelog", C::OUser), ("change log", C::OUser), ("operator", C::OUser), ("用户", C::OUser), ("维护者", C::OUser),
    ("评审者", C::OUser), ("审核者", C::OUser), ("人工", C::OUser),
    // ----- commands ------------------------------------------------------------------
    ("| sh", C::Cmd), ("| bash", C::Cmd), ("|sh", C::Cmd), ("|bash", C::Cmd),
    ("git push --force", C::Cmd), ("git push -f", C::Cmd), ("push --force", C::Cmd),
    ("reset --hard", C::Cmd), ("chmod -r 777", C::Cmd), ("chmod 777", C::Cmd),
    ("core.hookspath", C::Cmd), ("--no-verify", C::Cmd), ("/dev/tcp", C::Cmd),
    ("evokb_skip_lint", C::Cmd), ("queue merge --all", C::Cmd), ("queue reject --all", C::Cmd),
    ("git push", C::CmdWeak), ("pip install", C::CmdWeak), ("evokb clear", C::CmdWeak),
    ("python -c", C::CmdWeak), ("cat /etc/", C::CmdWeak), ("curl", C::CmdWeak),
    ("wget", C::CmdWeak), ("bootstrap-remote", C::CmdWeak), ("cleanup.sh", C::CmdWeak),
    ("git config --global", C::CmdWeak), ("rm -rf", C::CmdWeak),
    ("on the user's machine", C::Cmd), ("在用户的机器上", C::Cmd), ("在用户机器上", C::Cmd),
];

static AC: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .build(LEXICON.iter().map(|(t, _)| *t))
        .ok()
});

/// One lexicon hit inside a normalised line.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
    c: C,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// ASCII terms must not start or end inside a word (`pr` is not in `profile`).
fn on_boundaries(s: &[u8], start: usize, end: usize) -> bool {
    let first = s.get(start).copied().unwrap_or(b' ');
    let last = s.get(end.wrapping_sub(1)).copied().unwrap_or(b' ');
    let before = start.checked_sub(1).and_then(|i| s.get(i)).copied();
    let after = s.get(end).copied();
    let left_ok = !is_word_byte(first) || !before.is_some_and(is_word_byte);
    let right_ok = !is_word_byte(last) || !after.is_some_and(is_word_byte);
    // `agents` in `.agents/skills`, `queue` in `evolution/queue.md`: path components.
    let in_path = is_word_byte(first)
        && (before.is_some_and(|b| b == b'/' || b == b'.')
            || after == Some(b'/')
            || (after == Some(b'.') && s.get(end + 1).copied().is_some_and(is_word_byte)));
    left_ok && right_ok && !in_path
}

/// `$GITHUB_TOKEN`, `OPENAI_API_KEY`, `aws_secret_access_key`: identifiers naming a secret.
fn secret_identifiers(s: &str, out: &mut Vec<Hit>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_word_byte(b.get(i).copied().unwrap_or(b' ')) {
            let start = i;
            while i < b.len() && is_word_byte(b.get(i).copied().unwrap_or(b' ')) {
                i += 1;
            }
            let word = s.get(start..i).unwrap_or("");
            let dollar = start > 0 && b.get(start - 1) == Some(&b'$');
            let named = ["_token", "_api_key", "_apikey", "_secret", "_password", "_access_key"]
                .iter()
                .any(|suf| word.ends_with(suf))
                || (dollar
                    && ["key", "token", "secret", "pass", "cred"].iter().any(|w| word.contains(w)));
            if named && (word.contains('_') || dollar) {
                out.push(Hit {
                    start: start.saturating_sub(usize::from(dollar)),
                    end: i,
                    c: C::OSecret,
                });
            }
        } else {
            i += 1;
        }
    }
}

/// `rm -rf` followed by a target that is not a build tree: `~`, `/`, `$HOME`, `*`, `.agents`.
fn dangerous_rm(s: &str, out: &mut Vec<Hit>) {
    let mut from = 0;
    while let Some(rel) =
        s.get(from..).and_then(|t| t.find("rm -rf ").or_else(|| t.find("rm -fr ")))
    {
        let start = from + rel;
        let target = s.get(start + 7..).unwrap_or("").trim_start();
        if target.starts_with(['/', '~', '$', '*'])
            || target.starts_with(".agents")
            || target.starts_with(".git")
            || target.starts_with("..")
            || target.starts_with(".ssh")
        {
            out.push(Hit { start, end: start + 6, c: C::Cmd });
        }
        from = start + 7;
    }
}

/// Lexicon hits of a normalised line, by start offset.
fn scan(line: &str) -> Vec<Hit> {
    let mut hits = Vec::new();
    let bytes = line.as_bytes();
    if let Some(ac) = AC.as_ref() {
        for m in ac.find_overlapping_iter(line) {
            let (start, end) = (m.start(), m.end());
            if !on_boundaries(bytes, start, end) {
                continue;
            }
            if let Some((_, c)) = LEXICON.get(m.pattern().as_usize()) {
                hits.push(Hit { start, end, c: *c });
            }
        }
    }
    secret_identifiers(line, &mut hits);
    dangerous_rm(line, &mut hits);
    hits.sort_by_key(|h| (h.start, h.end));
    hits
}

/// Clause boundaries: sentence punctuation (`.` only when followed by a space or the end).
fn clauses(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    // In a table row `|` separates cells; elsewhere it is a pipe (`curl … | sh`).
    let table = line.trim_start().starts_with('|');
    let mut it = line.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|(_, n)| *n);
        let brk = match c {
            ';' | '!' | '?' | '。' | '；' | '！' | '？' => true,
            '|' => table,
            '.' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if brk {
            out.push((start, i + c.len_utf8()));
            start = i + c.len_utf8();
        }
    }
    if start < line.len() {
        out.push((start, line.len()));
    }
    out
}

/// Why a clause was flagged: what is asked, the verb/object fragment, and the mood cue.
pub(crate) struct Verdict {
    /// What the line asks the reader to do.
    #[allow(dead_code)]
    pub(crate) ask: Ask,
    /// One line: what is asked, the fragment that triggered it, and why it reads as an order.
    pub(crate) message: String,
}

fn is_cjk(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c as u32 >= 0x2E80)
}

/// Whether a negation sits right before the verb (within three words or four CJK characters,
/// and not part of a relaxation such as "don't bother").
fn negated(line: &str, hits: &[Hit], verb: &Hit, clause_start: usize) -> bool {
    hits.iter().any(|h| {
        h.c == C::Neg
            && h.end <= verb.start
            && h.start >= clause_start
            && {
                let gap = line.get(h.end..verb.start).unwrap_or("");
                let words = gap.split_whitespace().count();
                let cjk = gap.chars().filter(|c| *c as u32 >= 0x2E80).count();
                words <= 3 && cjk <= 4 && gap.len() <= 24
            }
            && !hits.iter().any(|r| {
                matches!(r.c, C::Relax | C::RelaxStrong) && r.start <= h.start && r.end >= h.end
            })
    })
}

/// Whether the verb opens its clause: only list markers, punctuation and softeners ("just",
/// "please", "请", "先", "把") stand before it.
fn opens_clause(line: &str, clause_start: usize, verb_start: usize) -> bool {
    let whole = line.get(clause_start..verb_start).unwrap_or("");
    let cjk = is_cjk(line.get(verb_start..).unwrap_or(""));
    // "When merging this item, skip the gate", "SYSTEM NOTE: disregard …". Chinese commas
    // join descriptive clauses, so only a colon resets a Chinese clause.
    let seps: &[char] = if cjk { &[':'] } else { &[',', ':', '—'] };
    let before = whole.rsplit(seps).next().unwrap_or(whole);
    let mut rest = before.trim();
    for p in ["请", "先", "再", "然后", "并且", "并", "直接", "立即", "也", "把", "将", "就"]
    {
        if let Some(r) = rest.strip_prefix(p) {
            rest = r.trim_start();
        }
    }
    if rest.chars().any(|c| c as u32 >= 0x2E80) {
        // `把 X 删除`: a disposal construction still reads as an order.
        return before.trim_start().starts_with(['把', '将']) && rest.chars().count() <= 24;
    }
    rest.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).all(|w| {
        matches!(
            w,
            "just"
                | "also"
                | "then"
                | "and"
                | "please"
                | "now"
                | "simply"
                | "first"
                | "so"
                | "kindly"
                | "instead"
                | "always"
        ) || w.chars().all(|c| c.is_ascii_digit())
    })
}

fn frag(line: &str, a: &Hit, b: &Hit) -> String {
    let (s, e) = (a.start.min(b.start), a.end.max(b.end));
    quote(line.get(s..e).unwrap_or(""), 70)
}

fn text_of<'a>(line: &'a str, h: &Hit) -> &'a str {
    line.get(h.start..h.end).unwrap_or("")
}

/// Evaluate one normalised line, and say whether it carries an action cue (so that a wrapped
/// sentence and the phrase rules are worth trying on it). One lexicon scan serves both.
pub(crate) fn judge(line: &str) -> (Option<Verdict>, bool) {
    let hits = scan(line);
    let action = hits.iter().any(|h| is_action(h.c));
    (judge_hits(line, &hits), action)
}

fn judge_hits(line: &str, hits: &[Hit]) -> Option<Verdict> {
    if hits.is_empty() {
        return None;
    }
    let header = hits.iter().find(|h| h.c == C::Header).copied();
    let newrule = hits.iter().find(|h| h.c == C::NewRule).copied();
    for (cs, ce) in clauses(line) {
        let ch: Vec<Hit> = hits.iter().filter(|h| h.start >= cs && h.end <= ce).copied().collect();
        if ch.is_empty() {
            continue;
        }
        let in_c = |c: C| ch.iter().find(|h| h.c == c).copied();
        let directive = in_c(C::Directive);
        let relax = in_c(C::Relax);
        let relax_strong = in_c(C::RelaxStrong);
        // Mood of an action verb: why it reads as an order to the reader.
        let mood = |verb: &Hit| -> Option<String> {
            let cjk = is_cjk(text_of(line, verb));
            let addr_before =
                ch.iter().find(|h| matches!(h.c, C::Addr) && h.end <= verb.start).copied();
            if let Some(h) = header {
                return Some(format!("addressed to the reader by {}", frag(line, &h, &h)));
            }
            if let Some(n) = newrule {
                return Some(format!("stated as a new rule ({})", frag(line, &n, &n)));
            }
            if let Some(r) = relax_strong {
                return Some(format!("relaxing the process with {}", frag(line, &r, &r)));
            }
            if let Some(a) = addr_before {
                return Some(format!("addressed to {}", frag(line, &a, &a)));
            }
            if let Some(d) = directive.filter(|d| !cjk || is_cjk(text_of(line, d))) {
                return Some(format!("as an order ({})", frag(line, &d, &d)));
            }
            if let Some(r) = relax.filter(|_| !cjk) {
                return Some(format!("relaxing the process with {}", frag(line, &r, &r)));
            }
            let temporal = cjk
                && line.get(verb.end..).is_some_and(|t| {
                    ["时", "后", "前", "之", "的", "过", "了"].iter().any(|p| t.starts_with(p))
                });
            if !temporal && opens_clause(line, cs, verb.start) {
                return Some("in the imperative".to_string());
            }
            None
        };
        let verdict = |ask: Ask, v: &Hit, o: &Hit, why: String| Verdict {
            ask,
            message: format!("{}: {} {why}", ask.label(), frag(line, v, o)),
        };
        // Persona switches and precedence claims are orders by themselves.
        let persona = in_c(C::Persona).filter(|p| {
            let next = line.get(p.end..).unwrap_or("").split_whitespace().next().unwrap_or("");
            !matches!(next, "ready" | "able" | "done" | "set" | "free" | "good" | "allowed")
        });
        if let Some(p) = persona {
            return Some(Verdict {
                ask: Ask::Override,
                message: format!(
                    "{}: {} claims authority over the reader's instructions",
                    Ask::Override.label(),
                    frag(line, &p, &p)
                ),
            });
        }
        // Download piped into a shell, rm -rf of home/root/.agents, force push, hooks off.
        if let Some(cmd) = in_c(C::Cmd) {
            let t = text_of(line, &cmd);
            let ask =
                if t.contains("no-verify") || t.contains("hookspath") || t.contains("skip_lint") {
                    Ask::SkipGate
                } else if t.contains("push") || t.contains("reset") {
                    Ask::Push
                } else {
                    Ask::RunCommand
                };
            return Some(Verdict {
                ask,
                message: format!(
                    "{}: {} is a dangerous command",
                    ask.label(),
                    frag(line, &cmd, &cmd)
                ),
            });
        }
        for v in &ch {
            let cjk = is_cjk(text_of(line, v));
            let after = |kinds: &[C], span: usize| -> Option<Hit> {
                ch.iter()
                    .find(|o| kinds.contains(&o.c) && o.start >= v.end && o.start <= v.end + span)
                    .copied()
            };
            // English objects follow the verb; Chinese ones may also stand before it (把/将).
            let near = |kinds: &[C]| -> Option<Hit> {
                ch.iter()
                    .find(|o| {
                        kinds.contains(&o.c)
                            && (o.start >= v.end && o.start <= v.end + 60
                                || cjk && o.end <= v.start && o.end + 40 >= v.start)
                    })
                    .copied()
            };
            let neg = negated(line, &ch, v, cs);
            match v.c {
                C::VSkip | C::VIgnore if !neg => {
                    let objs: &[C] =
                        if v.c == C::VIgnore { &[C::OGate, C::ORules] } else { &[C::OGate] };
                    if let Some(o) = near(objs) {
                        if let Some(why) = mood(v) {
                            let ask = if o.c == C::ORules { Ask::Override } else { Ask::SkipGate };
                            return Some(verdict(ask, v, &o, why));
                        }
                    }
                }
                C::VRun => {
                    if let Some(o) = after(&[C::CmdWeak], 40) {
                        if !neg {
                            if let Some(why) = mood(v) {
                                return Some(verdict(Ask::RunCommand, v, &o, why));
                            }
                        }
                    }
                    // "do not run the precision check", "不用跑门禁".
                    let span = if cjk { 3 } else { 40 };
                    if let Some(o) = after(&[C::OGate], span) {
                        let relaxed = ch.iter().any(|r| {
                            r.c == C::Relax
                                && r.end <= v.start
                                && r.end + 12 >= v.start
                                && !matches!(
                                    text_of(line, r),
                                    "直接" | "可以直接" | "可直接" | "just"
                                )
                        });
                        if neg || relaxed {
                            return Some(verdict(
                                Ask::SkipGate,
                                v,
                                &o,
                                "tells the reader not to run it".to_string(),
                            ));
                        }
                    }
                }
                C::VApprove if !neg => {
                    if let Some(o) = near(&[C::OItem]) {
                        if let Some(why) = mood(v) {
                            return Some(verdict(Ask::Approve, v, &o, why));
                        }
                    }
                    let en_relax = relax.filter(|r| {
                        !cjk && matches!(
                            text_of(line, r),
                            "even if"
                                | "even when"
                                | "even though"
                                | "regardless"
                                | "anyway"
                                | "without review"
                                | "without a review"
                                | "without reading"
                        )
                    });
                    if let Some(r) = en_relax {
                        return Some(verdict(
                            Ask::Approve,
                            v,
                            &r,
                            "despite the process".to_string(),
                        ));
                    }
                    let addr_before =
                        ch.iter().find(|h| h.c == C::Addr && h.end <= v.start).copied();
                    if let (Some(a), Some(r)) = (addr_before.or(header), relax.or(relax_strong)) {
                        return Some(verdict(
                            Ask::Approve,
                            &a,
                            v,
                            format!("with {}", frag(line, &r, &r)),
                        ));
                    }
                }
                C::VDelete | C::VChange if !neg => {
                    let objs: &[C] = if v.c == C::VDelete {
                        &[C::OKbFile, C::OEntries, C::ORules, C::OGate]
                    } else {
                        &[C::OKbFile]
                    };
                    if let Some(o) = near(objs) {
                        if let Some(why) = mood(v) {
                            return Some(verdict(Ask::Delete, v, &o, why));
                        }
                    }
                }
                C::VPush if !neg => {
                    if let Some(o) = near(&[C::ORemote]) {
                        if let Some(why) = mood(v) {
                            return Some(verdict(Ask::Push, v, &o, why));
                        }
                    }
                }
                C::VReveal | C::VSend if !neg => {
                    if let Some(o) = near(&[C::OSecret]) {
                        return Some(verdict(
                            Ask::Exfiltrate,
                            v,
                            &o,
                            "asks the reader to disclose a secret".to_string(),
                        ));
                    }
                    if v.c == C::VSend {
                        if let Some(o) = after(&[C::ODest], 90) {
                            if let Some(why) = mood(v) {
                                return Some(verdict(Ask::Exfiltrate, v, &o, why));
                            }
                        }
                    }
                }
                C::VReport if !neg => {
                    if let Some(o) = after(&[C::OPass], 50) {
                        let addr_before =
                            ch.iter().find(|h| h.c == C::Addr && h.end <= v.start).copied();
                        let cue = header
                            .or(relax_strong)
                            .or(relax)
                            .or(newrule)
                            .or(addr_before)
                            .map(|s| frag(line, &s, &s))
                            .or_else(|| {
                                (opens_clause(line, cs, v.start) && in_c(C::OGate).is_some())
                                    .then(|| "in the imperative".to_string())
                            });
                        if let Some(cue) = cue {
                            return Some(verdict(Ask::FalseReport, v, &o, format!("({cue})")));
                        }
                    }
                }
                C::VTell => {
                    let t = text_of(line, v);
                    let relaxed = ch.iter().any(|r| {
                        r.c == C::Relax
                            && r.end <= v.start
                            && r.end + 6 >= v.start
                            && matches!(
                                text_of(line, r),
                                "不用" | "不必" | "无需" | "不需要" | "no need"
                            )
                    });
                    let hide = neg
                        || relaxed
                        || matches!(
                            t,
                            "隐瞒"
                                | "瞒着"
                                | "need to see"
                                | "secret from"
                                | "hidden from"
                                | "leave it out of"
                        )
                        || (matches!(t, "hide" | "conceal") && opens_clause(line, cs, v.start))
                        || (t == "needs to know"
                            && ch.iter().any(|h| h.c == C::Neg || text_of(line, h) == "anyone"))
                        || ch.iter().any(|h| {
                            h.c == C::Relax
                                && h.end <= v.start
                                && text_of(line, h).starts_with("without")
                        });
                    if hide {
                        let o = near(&[C::OUser]).or_else(|| {
                            ch.iter()
                                .find(|o| {
                                    o.c == C::OUser && o.end <= v.start && o.end + 30 >= v.start
                                })
                                .copied()
                        });
                        if let Some(o) = o {
                            return Some(verdict(
                                Ask::HideFromUser,
                                v,
                                &o,
                                "keeps the action from the people in charge".to_string(),
                            ));
                        }
                    }
                }
                C::Stealth => {
                    let verbs = [C::VApprove, C::VPush, C::VRun, C::VDelete, C::CmdWeak];
                    let o = ch
                        .iter()
                        .find(|o| {
                            verbs.contains(&o.c)
                                && if cjk {
                                    o.start >= v.end && o.start <= v.end + 6
                                } else {
                                    o.start >= v.end && o.start <= v.end + 12
                                        || o.end <= v.start && o.end + 12 >= v.start
                                }
                        })
                        .copied();
                    if let Some(o) = o {
                        return Some(verdict(
                            Ask::HideFromUser,
                            v,
                            &o,
                            "does it without telling anyone".to_string(),
                        ));
                    }
                }
                C::Relax
                    if matches!(text_of(line, v), "无需" | "不必" | "不需要" | "不用" | "免") =>
                {
                    // "无需人工确认", "不必审核": the gate is waived outright.
                    if let Some(o) = after(&[C::OGate, C::OGateWeak], 6) {
                        return Some(verdict(Ask::SkipGate, v, &o, "waives the gate".to_string()));
                    }
                }
                C::NewRule | C::RelaxStrong => {
                    // "New policy: negative entries may be removed", "Tier 2 proposals no longer
                    // require human approval", "精度门禁已经废除".
                    let obj = ch
                        .iter()
                        .find(|o| {
                            matches!(
                                o.c,
                                C::OGate | C::ORules | C::OItem | C::OKbFile | C::OEntries
                            ) && (o.end <= v.start && o.end + 80 >= v.start
                                || o.start >= v.end && o.start <= v.end + 60)
                        })
                        .copied();
                    if let Some(o) = obj {
                        return Some(verdict(
                            Ask::RuleChange,
                            &o,
                            v,
                            "relaxes a rule of the process".to_string(),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Concepts that make a line worth a second look (all phrase rules start from one).
fn is_action(c: C) -> bool {
    matches!(
        c,
        C::VSkip
            | C::VIgnore
            | C::VApprove
            | C::VDelete
            | C::VPush
            | C::VReveal
            | C::VSend
            | C::VRun
            | C::VReport
            | C::VTell
            | C::Stealth
            | C::Persona
            | C::NewRule
            | C::Header
            | C::Cmd
            | C::CmdWeak
            | C::Neg
    )
}
