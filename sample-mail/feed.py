#!/usr/bin/env python3
"""Send the sample game's player mails to a running gm, one by one.

    python3 sample-mail/feed.py [--port 2525] [--step]

Each .eml is sent as it is, over SMTP on 127.0.0.1, its envelope taken from
its From: and To: headers (as `sendmail -t` would). With --step it waits for
Enter before each mail, so you can read the GM's answer in between. The gm
it talks to must run with the demo key (see sample-mail/README).
"""

import argparse
import email
import email.utils
import smtplib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=2525)
    parser.add_argument("--step", action="store_true", help="wait for Enter before each mail")
    args = parser.parse_args()
    for path in sorted(HERE.glob("[0-9][0-9]-*.eml")):
        if args.step:
            input(f"Enter sends {path.name} ")
        raw = path.read_bytes()
        message = email.message_from_bytes(raw)
        sender = email.utils.parseaddr(message["From"])[1]
        recipients = [a for _, a in email.utils.getaddresses(message.get_all("To", []))]
        with smtplib.SMTP("127.0.0.1", args.port, timeout=10) as client:
            client.sendmail(sender, recipients, raw)
        print(f"sent {path.name}: {message['Subject']}")
        time.sleep(0.5 if not args.step else 0)  # let the GM answer before the next mail
    return 0


if __name__ == "__main__":
    sys.exit(main())
