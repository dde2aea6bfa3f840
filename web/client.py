"""Who is asking, by network address: the one answer every limit keyed by address uses.

Behind a reverse proxy every request comes from the proxy's own address (``REMOTE_ADDR``), and the
client's is in ``X-Forwarded-For``, which anyone can also send. So the header is believed only as
far as it was written by proxies of our own, listed in ``settings.TRUSTED_PROXIES`` (addresses or
networks; empty by default, and then the header is never read): walking it from the right, from
the hop nearest to us, the first address that is not one of our proxies is the client. A client
who writes the header themselves only adds hops on its left, beyond the one our proxy appended.
(A server that already sets ``REMOTE_ADDR`` from the header, as uvicorn's ``--proxy-headers`` does,
needs no list here.)
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Final

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: What a request without a readable address is counted as (every such request shares it).
UNKNOWN: Final = "unknown"
#: The longest X-Forwarded-For read, in hops: a longer chain is cut on its left, the client's side.
MAX_HOPS: Final = 20


@lru_cache(maxsize=8)
def trusted_networks(listed: tuple[str, ...]) -> tuple[Network, ...]:
    """The proxies of ``settings.TRUSTED_PROXIES`` as networks (one address is a network of one)."""
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in listed)


#: Longer than any address written out (an IPv6 address with an IPv4 tail and a zone): not one, not parsed.
LONGEST_ADDRESS: Final = 64


def parse(text: str) -> Address | None:
    """One address as a proxy or a server writes it, or None for anything else."""
    text = text.strip()
    return _parsed(text) if len(text) <= LONGEST_ADDRESS else None


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Address | None:
    """:func:`parse`, kept for the addresses seen lately (every request limited reads its own, a few times; an
    address is a value, never changed), none longer than :data:`LONGEST_ADDRESS`: what a client writes in a
    header it forwards cannot fill the memory."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address: Address, networks: tuple[Network, ...]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


def client_address(request: HttpRequest) -> str:
    """The address of the client that sent ``request``, as text (:data:`UNKNOWN` when there is none).

    ``REMOTE_ADDR`` unless it is one of ``settings.TRUSTED_PROXIES``; then the nearest hop of
    ``X-Forwarded-For`` that is not one of them (or the farthest readable hop, should every one be
    ours). An unreadable hop ends the walk at the last address read: past it nothing is believed.
    """
    remote = parse(request.META.get("REMOTE_ADDR") or "")
    if remote is None:
        return UNKNOWN
    networks = trusted_networks(tuple(getattr(settings, "TRUSTED_PROXIES", ())))
    client = remote
    if networks and _trusted(remote, networks):
        hops = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-MAX_HOPS:]
        for hop in reversed(hops):
            address = parse(hop)
            if address is None:
                break
            client = address
            if not _trusted(address, networks):
                break
    return str(client)
