from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_not_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/home.html")


@login_not_required
def about(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/about.html")
