from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from annotate import account_views as account_pages
from annotate import flag_views as flag_pages
from annotate import organiser_views as organiser_pages
from annotate import study_views as study_entry_pages
from annotate import views as pages
from annotate.api import views as api
from annotate.imports import views as upload_pages
from concord import auth_api, auth_pages, help_views
from dashboard import study as study_pages
from dashboard import views as dashboard_pages
from kinds.registry import KINDS
from scoring import api as scoring_api
from scoring import views as scoring_pages

api_urls = [
    path("api/auth/token/", auth_api.TokenView.as_view(), name="api-token"),
    path("api/auth/tokens/", auth_api.TokenList.as_view(), name="api-tokens"),
    path("api/auth/tokens/<str:token_id>/", auth_api.TokenDetail.as_view(), name="api-token-detail"),
    path("api/auth/logout/", auth_api.Logout.as_view(), name="api-logout"),
    path("api/auth/logoutall/", auth_api.LogoutAll.as_view(), name="api-logoutall"),
    path("api/auth/session/", auth_api.Session.as_view(), name="api-session"),
    path("api/campaigns/", api.CampaignList.as_view(), name="api-campaigns"),
    path("api/campaigns/<int:campaign_id>/", api.CampaignDetail.as_view(), name="api-campaign"),
    path("api/campaigns/<int:campaign_id>/members/", api.MemberList.as_view(), name="api-members"),
    path("api/campaigns/<int:campaign_id>/topics/", api.TopicList.as_view(), name="api-topics"),
    path("api/campaigns/<int:campaign_id>/runs/", api.RunList.as_view(), name="api-runs"),
    path("api/campaigns/<int:campaign_id>/pools/", api.Pools.as_view(), name="api-pools"),
    path(
        "api/campaigns/<int:campaign_id>/topics/<str:topic_id>/curations/<str:name>/",
        api.TopicCuration.as_view(),
        name="api-curation",
    ),
    path(
        "api/campaigns/<int:campaign_id>/topics/<str:topic_id>/judgment/",
        api.OwnJudgment.as_view(),
        name="api-judgment",
    ),
    path(
        "api/campaigns/<int:campaign_id>/topics/<str:topic_id>/judgment/reopen/",
        api.JudgmentReopen.as_view(),
        name="api-judgment-reopen",
    ),
    path(
        "api/campaigns/<int:campaign_id>/topics/<str:topic_id>/judgment/withdraw/",
        api.JudgmentWithdraw.as_view(),
        name="api-judgment-withdraw",
    ),
    path("api/campaigns/<int:campaign_id>/topics/<str:topic_id>/skip/", api.TopicSkip.as_view(), name="api-topic-skip"),
    path("api/campaigns/<int:campaign_id>/next-topic/", api.NextTopic.as_view(), name="api-next-topic"),
    path(
        "api/campaigns/<int:campaign_id>/topics/<str:topic_id>/flags/", api.TopicFlags.as_view(), name="api-topic-flags"
    ),
    path("api/campaigns/<int:campaign_id>/flags/", api.CampaignFlags.as_view(), name="api-flags"),
    path(
        "api/campaigns/<int:campaign_id>/flags/<int:flag_id>/resolve/",
        api.FlagResolve.as_view(),
        name="api-flag-resolve",
    ),
    path("api/campaigns/<int:campaign_id>/judgments/", api.JudgmentList.as_view(), name="api-judgments"),
    path(
        "api/campaigns/<int:campaign_id>/judgments/import/", api.JudgmentImport.as_view(), name="api-judgments-import"
    ),
    path("api/campaigns/<int:campaign_id>/agreement/", scoring_api.Agreement.as_view(), name="api-agreement"),
    path(
        "api/campaigns/<int:campaign_id>/agreement/headline/",
        scoring_api.AgreementHeadline.as_view(),
        name="api-agreement-headline",
    ),
    path(
        "api/campaigns/<int:campaign_id>/agreement/topics/",
        scoring_api.AgreementTopics.as_view(),
        name="api-agreement-topics",
    ),
    path("api/campaigns/<int:campaign_id>/analyses/", scoring_api.Analyses.as_view(), name="api-analyses"),
    path("api/jobs/<int:job_id>/", scoring_api.JobDetail.as_view(), name="api-job"),
    path("api/jobs/<int:job_id>/cancel/", scoring_api.JobCancel.as_view(), name="api-job-cancel"),
    path("api/jobs/<int:job_id>/apply/", scoring_api.JobApply.as_view(), name="api-job-apply"),
    path("api/jobs/<int:job_id>/revert/", scoring_api.JobRevert.as_view(), name="api-job-revert"),
    path("api/campaigns/<int:campaign_id>/export/", scoring_api.Export.as_view(), name="api-export"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI from drf-spectacular-sidecar; its start script is served by the
    # same view (?script), not inline, so the page has the CSP of every page.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/docs.html"),
        name="api-docs",
    ),
]

page_urls = [
    path("", dashboard_pages.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signed-in/", auth_pages.signed_in, name="signed-in"),
    path("campaigns/new/", pages.new_campaign, name="campaign-new"),
    path("campaigns/<int:campaign_id>/progress/", dashboard_pages.progress, name="campaign-progress"),
    path("campaigns/<int:campaign_id>/summary/", dashboard_pages.summary, name="campaign-summary"),
    path("campaigns/<int:campaign_id>/members/", organiser_pages.campaign_members, name="campaign-members"),
    path("campaigns/<int:campaign_id>/study/", study_pages.study_page, name="campaign-study"),
    path("campaigns/<int:campaign_id>/study/time.csv", study_pages.study_times, name="campaign-study-time"),
    path("study/<str:token>/", study_entry_pages.study_entry, name="study"),
    path("campaigns/<int:campaign_id>/controls/", organiser_pages.campaign_controls, name="campaign-controls"),
    path("campaigns/<int:campaign_id>/uploads/", upload_pages.campaign_uploads, name="campaign-uploads"),
    path("campaigns/<int:campaign_id>/uploads/import/", upload_pages.campaign_import, name="campaign-import"),
    path(
        "campaigns/<int:campaign_id>/uploads/samples/<str:sample>",
        upload_pages.campaign_sample,
        name="campaign-sample",
    ),
    path("campaigns/<int:campaign_id>/assignments/", dashboard_pages.campaign_assignments, name="campaign-assignments"),
    path("campaigns/<int:campaign_id>/quality/", dashboard_pages.campaign_quality, name="campaign-quality"),
    path("campaigns/<int:campaign_id>/quality.csv", dashboard_pages.campaign_quality_csv, name="campaign-quality-csv"),
    # A set-password link's code is its fragment, never in a URL the server sees (annotate/services/accounts.py).
    path("accounts/set-password/", account_pages.set_password, name="set-password"),
    path("accounts/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("campaigns/<int:campaign_id>/", dashboard_pages.campaign, name="campaign"),
    path("campaigns/<int:campaign_id>/topics/<str:topic_id>/judge/", pages.judge, name="judge"),
    path("campaigns/<int:campaign_id>/next/", pages.next_topic, name="campaign-next"),
    path("campaigns/<int:campaign_id>/topics/<str:topic_id>/skip/", flag_pages.topic_skip, name="topic-skip"),
    path("campaigns/<int:campaign_id>/flags/<int:flag_id>/resolve/", flag_pages.flag_resolve, name="flag-resolve"),
    path("campaigns/<int:campaign_id>/report/", scoring_pages.report, name="campaign-report"),
    path("campaigns/<int:campaign_id>/topics/<str:topic_id>/report/", scoring_pages.topic_report, name="topic-report"),
    path("campaigns/<int:campaign_id>/report/matrix.csv", scoring_pages.report_matrix, name="campaign-report-matrix"),
    path("campaigns/<int:campaign_id>/report/table.csv", scoring_pages.report_table, name="campaign-report-table"),
    path(
        "campaigns/<int:campaign_id>/topics/<str:topic_id>/report/matrix.csv",
        scoring_pages.topic_report_matrix,
        name="topic-report-matrix",
    ),
    path(
        "campaigns/<int:campaign_id>/topics/<str:topic_id>/consensus/", pages.consensus_editor, name="consensus-editor"
    ),
    path("campaigns/<int:campaign_id>/adjudication/", dashboard_pages.adjudication_queue, name="adjudication"),
    path(
        "campaigns/<int:campaign_id>/topics/<str:topic_id>/adjudicate/",
        dashboard_pages.adjudicate,
        name="adjudicate",
    ),
    path("campaigns/<int:campaign_id>/analyses/", scoring_pages.start_analysis, name="campaign-analyses"),
    path("campaigns/<int:campaign_id>/jobs/", scoring_pages.jobs, name="campaign-jobs"),
    path("jobs/<int:job_id>/", scoring_pages.job, name="job"),
    path("jobs/<int:job_id>/cancel/", scoring_pages.cancel_job, name="job-cancel"),
    path("jobs/<int:job_id>/apply/", scoring_pages.apply_job, name="job-apply"),
    path("jobs/<int:job_id>/revert/", scoring_pages.revert_job, name="job-revert"),
    path("campaigns/<int:campaign_id>/export/", scoring_pages.export, name="campaign-export"),
    path(
        "campaigns/<int:campaign_id>/export/download/", scoring_pages.export_download, name="campaign-export-download"
    ),
    path("admin/", admin.site.urls),
    # Help pages and images are looked up by name in lists made at start (concord/help.py).
    path("help/", help_views.index, name="help"),
    path("help/<slug:name>/", help_views.page, name="help-page"),
    path("help/<slug:folder>/<str:name>", help_views.image, name="help-image"),
]

#: Each kind's own pages and endpoints (KindSpec.urls).
kind_urls = [path("", include(kind.urls)) for kind in KINDS.values() if kind.urls]

urlpatterns = api_urls + page_urls + kind_urls

# Pages that say why (templates/400.html ... 500.html); JSON under /api/.
handler400 = "concord.error_pages.bad_request"
handler403 = "concord.error_pages.permission_denied"
handler404 = "concord.error_pages.page_not_found"
handler500 = "concord.error_pages.server_error"
