from django.urls import path

from characters import drafting_views, exchange_views, history_views, ledger_views, lifecycle_views, views

app_name = "characters"

urlpatterns = [
    path("characters/<int:pk>/", views.sheet, name="sheet"),
    path("characters/<int:pk>/edit/<slug:section>/", views.edit_section, name="edit-section"),
    path("characters/<int:pk>/section/<slug:section>/", views.sheet_section, name="sheet-section"),
    path("characters/<int:pk>/history/", history_views.history, name="history"),
    path("characters/<int:pk>/awaiting/", views.decide_awaiting, name="decide-awaiting"),
    path("characters/<int:pk>/ledger/", ledger_views.ledger_page, name="ledger"),
    path("characters/<int:pk>/ledger/<int:entry_pk>/reverse/", ledger_views.correct_entry, name="correct-entry"),
    path("characters/<int:pk>/advance/", ledger_views.advance, name="advance"),
    path("characters/<int:pk>/advance/buy/", ledger_views.buy, name="buy"),
    path("campaigns/<int:campaign_pk>/award/", ledger_views.award, name="award"),
    path("campaigns/<int:campaign_pk>/characters/new/", drafting_views.start, name="create"),
    path("characters/<int:pk>/create/<slug:step>/", drafting_views.step, name="create-step"),
    path("characters/<int:pk>/archive/", lifecycle_views.archive, name="archive"),
    path("characters/<int:pk>/restore/", lifecycle_views.restore, name="restore"),
    path("characters/<int:pk>/delete/", drafting_views.delete_draft, name="delete-draft"),
    path("characters/<int:pk>/export.json", exchange_views.export_character, name="export"),
    path("characters/<int:pk>/print/", exchange_views.print_sheet, name="print"),
    path("campaigns/<int:campaign_pk>/characters/import/", exchange_views.import_character, name="import"),
]
