"""What `novo-slack sim --demo` puts in front of people: believable approvals and questions.

The templates are control-API bodies (`POST /_sim/interactions`), grouped by
run step, so a demo exercises every shape the bridge must render: rich tool
inputs and previews, every kind of question, siblings in one step, a
deadline close enough to watch expire. Ids are fresh each time a group is
used, so the feed can cycle through the same templates forever.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass
from typing import Any

from novo_dev.sim.spec import InteractionSpec
from novo_dev.sim.state import SimState, new_id

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_SECONDS = 8.0
SHORT_EXPIRY_SECONDS = 75.0


@dataclass(frozen=True)
class DemoGroup:
    """Interactions one run step pauses on; `worker` makes the run a worker of a root run.

    `agent` is the agent that asks: the same id each time, so a policy file can name
    it, route it and give it deciders (the demo's own policy does,
    `devkit/novo_dev/demo/policy.yml`).
    """

    interactions: tuple[dict[str, Any], ...]
    agent: str
    worker: bool = False


# Over 100 options, so the bridge must fall back from a static select; packed to stay short.
_COUNTRY_NAMES = (
    "Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria Azerbaijan "
    "Bahamas Bahrain Bangladesh Barbados Belarus Belgium Belize Benin Bhutan Bolivia Botswana "
    "Brazil Brunei Bulgaria Burundi Cambodia Cameroon Canada Chad Chile China Colombia Comoros "
    "Croatia Cuba Cyprus Czechia Denmark Djibouti Dominica Ecuador Egypt Eritrea Estonia "
    "Eswatini Ethiopia Fiji Finland France Gabon Gambia Georgia Germany Ghana Greece Grenada "
    "Guatemala Guinea Guyana Haiti Honduras Hungary Iceland India Indonesia Iran Iraq Ireland "
    "Israel Italy Jamaica Japan Jordan Kazakhstan Kenya Kiribati Kuwait Kyrgyzstan Laos Latvia "
    "Lebanon Lesotho Liberia Libya Liechtenstein Lithuania Luxembourg Madagascar Malawi "
    "Malaysia Maldives Mali Malta Mauritania Mauritius Mexico Moldova Monaco Mongolia "
    "Montenegro Morocco Mozambique Myanmar Namibia Nauru Nepal Netherlands Nicaragua Niger "
    "Nigeria Norway Oman Pakistan Palau Panama Paraguay Peru Philippines Poland Portugal Qatar "
    "Romania Rwanda Samoa Senegal Serbia Seychelles Singapore Slovakia Slovenia Somalia Spain "
    "Sudan Suriname Sweden Switzerland Syria Tajikistan Tanzania Thailand Togo Tonga Tunisia "
    "Turkey Turkmenistan Tuvalu Uganda Ukraine Uruguay Uzbekistan Vanuatu Venezuela Vietnam "
    "Yemen Zambia Zimbabwe"
)
COUNTRIES = tuple(_COUNTRY_NAMES.split())

_DEPLOY = {
    "kind": "approval_request",
    "stepNumber": 4,
    "toolName": "deploy_service",
    "input": {
        "environment": "production",
        "gitSha": "9f3c2ab71e0d4c5b8a6f1e2d3c4b5a69788f0e1d",
        "services": ["api-gateway", "billing-worker", "notifications"],
        "strategy": "rolling",
        "maxUnavailable": 1,
    },
    "preview": {
        "title": "Deploy 3 services to production",
        "summary": "Rolling deploy of `9f3c2ab` (*fix: retry webhook delivery*) to "
        "**api-gateway**, **billing-worker** and **notifications**. "
        "Staging has run this build for 26 h with no new errors.",
    },
}

_SQL_DELETE = {
    "kind": "approval_request",
    "stepNumber": 2,
    "toolName": "sql_execute",
    "input": {
        "database": "orders-prod",
        "statement": "DELETE FROM sessions\nWHERE last_seen_at < now() - interval '90 days';",
    },
    "preview": {
        "title": "DELETE on orders-prod.sessions",
        "summary": "Removes about **184,223** rows of sessions idle for more than 90 days.",
        "estimatedRows": 184223,
    },
}

_SQL_UPDATE = {
    "kind": "approval_request",
    "stepNumber": 7,
    "toolName": "sql_execute",
    "input": {
        "database": "crm-prod",
        "statement": "UPDATE accounts\nSET plan = 'enterprise', seats = 250\nWHERE id = 48213;",
    },
    "preview": {"title": "UPDATE crm-prod.accounts (1 row)", "estimatedRows": 1},
}

_NOTIFY_EMAIL = {
    "kind": "approval_request",
    "stepNumber": 7,
    "toolName": "send_email",
    "input": {
        "to": ["procurement@northwind.example", "it-admin@northwind.example"],
        "subject": "Your plan is now Enterprise (250 seats)",
        "body": "Hello Northwind team,\n\nYour account now has 250 Enterprise seats.\n\n— Billing",
    },
    "preview": {"title": "Email 2 recipients at Northwind", "recipients": 2},
}

_REFUND = {
    "kind": "approval_request",
    "stepNumber": 3,
    "toolName": "stripe_create_refund",
    "input": {
        "charge": "ch_3PqL2vE8yF1kZt0b1xY9aB7c",
        "amount": 12900,
        "currency": "usd",
        "customer": "cus_Q8xK2mT7nR4pLd",
        "reason": "requested_by_customer",
    },
    "preview": {
        "title": "Refund $129.00 to Dana Whitfield",
        "summary": "Order #A-20931 arrived damaged; the customer sent photos. "
        "Refunds over $100 need a human.",
    },
}

_CAMPAIGN_EMAIL = {
    "kind": "approval_request",
    "stepNumber": 5,
    "toolName": "send_email",
    "input": {
        "to": [f"customer{n:03d}@example.com" for n in range(1, 41)],
        "subject": "Scheduled maintenance on Saturday, 02:00–04:00 UTC",
        "body": "Hi,\n\nWe will upgrade our database on Saturday between 02:00 and 04:00 UTC.\n"
        "The dashboard will be read-only during that window.\n\nThanks for your patience,\n"
        "The Acme team",
    },
    "preview": {"title": "Email 40 customers about maintenance", "recipients": 40},
}

_ROTATE = {
    "kind": "approval_request",
    "stepNumber": 1,
    "toolName": "rotate_credential",
    "input": {
        "secret": "prod/payments/stripe-api-key",
        "store": "aws-secrets-manager",
        "revokeOldAfterMinutes": 30,
        "restart": ["payments-api"],
    },
    "preview": {
        "title": "Rotate the production Stripe API key",
        "summary": "The old key stays valid for 30 minutes, then is revoked.",
    },
    "expiresInSeconds": SHORT_EXPIRY_SECONDS,
}


def _question(request: dict[str, Any], step: int = 1) -> dict[str, Any]:
    return {"kind": "question", "stepNumber": step, "request": request}


def _options(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"id": option_id, "label": label} for option_id, label in pairs]


_REGION = _question(
    {
        "title": "Which region should the new cluster run in?",
        "details": "Latency tests from last week are in the *infra-benchmarks* doc.",
        "questions": [
            {
                "id": "q_region",
                "prompt": "Region",
                "options": [
                    {"id": "us-east-1", "label": "US East (Virginia)"},
                    {"id": "eu-west-1", "label": "EU (Ireland)", "description": "GDPR default"},
                    {"id": "ap-southeast-2", "label": "Asia Pacific (Sydney)"},
                ],
            }
        ],
    }
)

_ATTACHMENTS = _question(
    {
        "title": "Which documents should I attach to the audit reply?",
        "questions": [
            {
                "id": "q_docs",
                "prompt": "Documents",
                "multiple": True,
                "options": _options(
                    ("invoices", "Invoices"),
                    ("receipts", "Receipts"),
                    ("contracts", "Signed contracts"),
                    ("tax-forms", "Tax forms"),
                ),
            }
        ],
    },
    step=3,
)

_COUNTRY = _question(
    {
        "title": "Which country is this customer billed in?",
        "details": "The VAT number on file does not match the shipping address.",
        "questions": [
            {
                "id": "q_country",
                "prompt": "Billing country",
                "options": [{"id": name.lower(), "label": name} for name in COUNTRIES],
            }
        ],
    },
    step=2,
)

_RELEASE_NAME = _question(
    {
        "title": "What should the release be called?",
        "questions": [{"id": "q_name", "prompt": "Release name"}],
    }
)

_CUSTOMER_NOTE = _question(
    {
        "title": "Write the note for the customer",
        "details": "It goes out with the refund confirmation. Markdown is fine.",
        "questions": [{"id": "q_note", "prompt": "Note", "multiline": True}],
    },
    step=6,
)

_WINDOW = _question(
    {
        "title": "When may I restart the payment workers?",
        "questions": [
            {
                "id": "q_window",
                "prompt": "Window",
                "allowOther": True,
                "options": _options(("tonight", "Tonight, 22:00"), ("weekend", "Saturday")),
            }
        ],
    }
)

_MIGRATION = _question(
    {
        "title": "Which environments should the migration run in?",
        "details": "Adds a NOT NULL column to `invoices` with a backfill (~3 min per env).",
        "questions": [
            {
                "id": "q_env",
                "prompt": "Environments",
                "multiple": True,
                "options": [
                    {"id": "staging", "label": "Staging"},
                    {"id": "prod", "label": "Production", "description": "Needs a change ticket"},
                ],
            },
            {
                "id": "q_window",
                "prompt": "Maintenance window",
                "allowOther": True,
                "options": _options(("tonight", "Tonight"), ("weekend", "Weekend")),
            },
            {
                "id": "q_notes",
                "prompt": "Anything the agent should know?",
                "multiline": True,
                "optional": True,
            },
        ],
        "actions": [{"id": "a_skip", "label": "Skip the migration", "style": "danger"}],
    },
    step=5,
)

_EXPORT_FAILED = _question(
    {
        "title": "The nightly export failed three times. What now?",
        "details": "Last error: `S3 PutObject: SlowDown` after 1.2 GB of 3.4 GB.",
        "actions": [
            {"id": "a_retry", "label": "Retry now", "style": "primary"},
            {"id": "a_skip", "label": "Skip tonight"},
            {"id": "a_delete", "label": "Delete the partial export", "style": "danger"},
        ],
    },
    step=9,
)

TEMPLATES: tuple[DemoGroup, ...] = (
    DemoGroup((_DEPLOY,), "agt_deployer"),
    DemoGroup((_REGION,), "agt_infra"),
    DemoGroup((_SQL_DELETE,), "agt_dba"),
    DemoGroup((_ATTACHMENTS,), "agt_support"),
    DemoGroup((_REFUND,), "agt_billing", worker=True),
    DemoGroup((_COUNTRY,), "agt_billing"),
    DemoGroup((_SQL_UPDATE, _NOTIFY_EMAIL), "agt_accounts"),
    DemoGroup((_RELEASE_NAME,), "agt_release"),
    DemoGroup((_CAMPAIGN_EMAIL,), "agt_support"),
    DemoGroup((_CUSTOMER_NOTE,), "agt_billing"),
    DemoGroup((_ROTATE,), "agt_security"),
    DemoGroup((_WINDOW,), "agt_infra"),
    DemoGroup((_MIGRATION,), "agt_release"),
    DemoGroup((_EXPORT_FAILED,), "agt_infra"),
)


def create_group(state: SimState, group: DemoGroup) -> None:
    """Create one group's interactions on one fresh run (a worker run when asked)."""
    root_run_id = new_id("run")
    shared: dict[str, Any] = {
        "runId": new_id("run") if group.worker else root_run_id,
        "rootRunId": root_run_id,
        "workerRef": new_id("wkr") if group.worker else None,
        "threadId": new_id("thr"),
        "agentId": group.agent,
    }
    for template in group.interactions:
        state.create(InteractionSpec.model_validate({**template, **shared}))


def seed(state: SimState) -> None:
    """Every template once, so a demo opens on the full range of shapes."""
    for group in TEMPLATES:
        create_group(state, group)
    log.info("demo: seeded %d run steps", len(TEMPLATES))


async def feed(state: SimState, interval_seconds: float) -> None:
    """A new run step every `interval_seconds`, cycling through the templates, until cancelled.

    `novo-slack sim --demo` keeps feeding; `novo-slack demo` does only with `--rate`, so a
    channel that was seeded once stays readable and one made by hand is not buried."""
    for group in itertools.cycle(TEMPLATES):
        await asyncio.sleep(interval_seconds)
        create_group(state, group)
