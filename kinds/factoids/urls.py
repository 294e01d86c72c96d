"""The factoids kind's own pages and endpoint (KindSpec.urls), under the site's root."""

from django.urls import path

from kinds.factoids import api, views

urlpatterns = [
    path("api/campaigns/<int:campaign_id>/phase/", api.Phase.as_view(), name="api-phase"),
    path("campaigns/<int:campaign_id>/phase/", views.start_phase_two, name="campaign-phase"),
    path("campaigns/<int:campaign_id>/phase/revert/", views.revert_phase_two, name="campaign-phase-revert"),
    path(
        "campaigns/<int:campaign_id>/topics/<str:topic_id>/relations/",
        views.relations_editor,
        name="relations-editor",
    ),
]
