"""``{% extends %}`` for every template, as Django's, with the blocks of the page a template extends at the root
found once (a builtin library of the template engine, config/settings.py: it takes the place of Django's tag
of the same name).

Django's tag walks the whole node tree of the root template (``base.html``) for its blocks every time a page
that extends it is drawn: some 130 calls into the tree and 480 in all, for the same few blocks each time, as
a compiled template never changes (the cached loader keeps it; under DEBUG a template read again is another
object, walked afresh). :class:`KeptExtendsNode` walks each compiled root once and keeps its blocks beside
it; everything else (which template it extends, the blocks it gives them, how the parent is drawn) is
Django's."""

from __future__ import annotations

import weakref
from typing import Any

from django import template
from django.template.base import Parser, Template, TextNode, Token
from django.template.loader_tags import BLOCK_CONTEXT_KEY, BlockContext, BlockNode, ExtendsNode, do_extends
from django.utils.safestring import SafeString

register = template.Library()

#: The blocks of each compiled root template by name, as Django's tag finds them; None for a template that
#: extends another (whose own ``{% extends %}`` gives its blocks).
_root_blocks: weakref.WeakKeyDictionary[Template, dict[str, BlockNode] | None] = weakref.WeakKeyDictionary()


def root_blocks(compiled: Template) -> dict[str, BlockNode] | None:
    """``compiled``'s blocks if it is a root (its first tag is not ``{% extends %}``), walked for once."""
    try:
        return _root_blocks[compiled]
    except KeyError:
        pass
    found = None
    for node in compiled.nodelist:
        if not isinstance(node, TextNode):
            if not isinstance(node, ExtendsNode):
                found = {n.name: n for n in compiled.nodelist.get_nodes_by_type(BlockNode)}
            break
    _root_blocks[compiled] = found
    return found


class KeptExtendsNode(ExtendsNode):
    """Django's ``ExtendsNode``, its root's blocks found by :func:`root_blocks`."""

    def render(self, context: Any) -> SafeString:
        compiled_parent = self.get_parent(context)
        if BLOCK_CONTEXT_KEY not in context.render_context:
            context.render_context[BLOCK_CONTEXT_KEY] = BlockContext()
        block_context = context.render_context[BLOCK_CONTEXT_KEY]
        block_context.add_blocks(self.blocks)
        blocks = root_blocks(compiled_parent)
        if blocks is not None:
            block_context.add_blocks(blocks)
        with context.render_context.push_state(compiled_parent, isolated_context=False):
            return compiled_parent._render(context)


@register.tag
def extends(parser: Parser, token: Token) -> KeptExtendsNode:
    """Django's ``{% extends %}``, read the same way, its root's blocks kept (see the module)."""
    node = do_extends(parser, token)
    return KeptExtendsNode(node.nodelist, node.parent_name, node.template_dirs)
